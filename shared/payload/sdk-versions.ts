import { paddedVersionString } from '@growthbook/growthbook';
import { InvalidInputError } from '../errors';
import { DEFAULT_SDK_VERSIONS, SDK_VERSION_TABLE, type SdkCapability, type SdkVersionRow } from './sdk-version-table';

export type { SdkCapability } from './sdk-version-table';

/**
 * What an SDK connection's `languages` and `sdkVersion` let it read, computed as GrowthBook computes
 * it (`packages/shared/src/sdk-versioning/index.ts`). Versions compare with the SDK's own
 * `paddedVersionString`, so `1.10.0` > `1.9.0` and a leading `v` is ignored, as in GrowthBook.
 */

/** Every language a connection may name. */
export const SDK_LANGUAGES = Object.keys(SDK_VERSION_TABLE);

const known = (language: string | undefined): language is string => language !== undefined && Object.hasOwn(SDK_VERSION_TABLE, language);

/** A language GrowthBook does not know reads as `other`. */
const rowsOf = (language: string | undefined): SdkVersionRow[] => SDK_VERSION_TABLE[known(language) ? language : 'other'];

/** The versions GrowthBook knows for a language, newest first. */
export const sdkVersionsOf = (language: string | undefined): string[] => rowsOf(language).map((row) => row.version);

/** The newest known version of a language (`0.0.0` when none). */
export const latestSdkVersion = (language: string | undefined): string => rowsOf(language)[0]?.version ?? '0.0.0';

/** The version assumed for a connection that names none. */
export const defaultSdkVersion = (language: string | undefined): string => (known(language) ? DEFAULT_SDK_VERSIONS[language] : undefined) ?? '0.0.0';

/**
 * The capabilities of one language at `version` (its default when empty): those of every known
 * version up to it. `looseToBucketingV2` reads `looseUnmarshalling` as `bucketingV2` too, as GrowthBook
 * does for the languages of a multi-language connection.
 */
export function sdkCapabilities(language: string | undefined, version?: string, looseToBucketingV2 = false): SdkCapability[] {
  const at = paddedVersionString(version || defaultSdkVersion(language));
  const found = new Set<string>();
  for (const row of rowsOf(language)) {
    if (paddedVersionString(row.version) <= at) row.capabilities?.forEach((capability) => found.add(capability));
  }
  if (looseToBucketingV2 && found.has('looseUnmarshalling')) found.add('bucketingV2');
  return [...found] as SdkCapability[];
}

/**
 * A connection's capabilities, as GrowthBook's payload builder computes them: one language (or
 * none, read as `other`) at the connection's `sdkVersion`; several languages at each one's default
 * version, keeping only what all of them can do.
 */
export function connectionCapabilities(connection: { languages?: string[]; sdkVersion?: string }): Set<SdkCapability> {
  const languages = connection.languages ?? [];
  if (languages.length <= 1) return new Set(sdkCapabilities(languages[0], connection.sdkVersion));
  const [first, ...rest] = languages.map((language) => new Set(sdkCapabilities(language, undefined, true)));
  return new Set([...first].filter((capability) => rest.every((capabilities) => capabilities.has(capability))));
}

/** The settings an SDK needs a capability for; GrowthBook refuses them for a version without it. */
const NEEDS = [
  ['encryptPayload', 'encryption'],
  ['remoteEvalEnabled', 'remoteEval'],
  ['includeVisualExperiments', 'visualEditor'],
  ['includeRedirectExperiments', 'redirects'],
] as const;

type Needing = Partial<Record<(typeof NEEDS)[number][0], boolean>>;

/**
 * The `languages` and `sdkVersion` a connection is stored with after a create (no `current`) or an
 * update, checked as GrowthBook checks them: the language must be one it knows; the version defaults
 * to the connection's, then to the language's newest, and must be a known version of the language;
 * and each of `encryptPayload`, `remoteEvalEnabled`, `includeVisualExperiments` and
 * `includeRedirectExperiments` turned on in `body` needs its capability at that version.
 * Throws InvalidInputError naming the field.
 */
export function resolveSdkVersion(
  body: Needing & { language?: string; sdkVersion?: string },
  current?: { languages: string[]; sdkVersion?: string },
): { languages?: string[]; sdkVersion: string } {
  const requested = body.language || undefined;
  if (requested !== undefined && !known(requested)) {
    throw new InvalidInputError(`Request body: [language] language ${requested} is not supported; use one of ${SDK_LANGUAGES.join(', ')}`);
  }
  const language = requested ?? current?.languages[0] ?? 'other';
  const latest = latestSdkVersion(language);
  const sdkVersion = body.sdkVersion || current?.sdkVersion || latest;
  if (!sdkVersionsOf(language).includes(sdkVersion)) {
    throw new InvalidInputError(`Request body: [sdkVersion] SDK version ${sdkVersion} does not exist for ${language}; the newest is ${latest}`);
  }
  const capabilities = sdkCapabilities(language, sdkVersion);
  const newest = sdkCapabilities(language, latest);
  for (const [setting, capability] of NEEDS) {
    if (!body[setting] || capabilities.includes(capability)) continue;
    throw new InvalidInputError(
      newest.includes(capability)
        ? `Request body: [${setting}] needs ${capability}, which ${language} ${sdkVersion} does not support: upgrade to ${latest}`
        : `Request body: [${setting}] needs ${capability}, which no ${language} SDK version supports`,
    );
  }
  return { ...(requested !== undefined ? { languages: [requested] } : {}), sdkVersion };
}
