/*
 * Kept out of Lambda bundles by a specifier esbuild does not follow, as the local snapshot run is:
 * listing files needs DuckDB, which only `npm start` and the tests run.
 */
const localModule: string = './information-schema';

/** The DuckDB information schema module, loaded on first use. */
export const loadInformationSchema = async () => (await import(localModule)) as typeof import('./information-schema');
