/** The release of the service; kept equal to package.json's `version` (a unit test checks it). */
export const SERVICE_VERSION = '0.1.0';

/**
 * The build serving a request: `BUILD_SHA` and `BUILD_DATE` are set by whoever builds a deployment
 * (empty when unset, e.g. under `npm start`).
 */
export function currentBuild(): { sha: string; date: string; lastVersion: string } {
  return { sha: process.env.BUILD_SHA ?? '', date: process.env.BUILD_DATE ?? '', lastVersion: SERVICE_VERSION };
}
