import * as z from './zod';
import { defineEndpoint } from './spec';

const sdkRule = z.record(z.string(), z.unknown());

/** The body GrowthBook SDKs fetch: `features` in clear, or `encryptedFeatures` when the connection encrypts. */
export const sdkPayloadBody = z.object({
  status: z.literal(200),
  features: z.record(z.string(), z.object({ defaultValue: z.unknown(), rules: z.optional(z.array(sdkRule)) })),
  encryptedFeatures: z.optional(z.string()),
  /** Visual-editor and URL-redirect experiments, for connections that include them. */
  experiments: z.optional(z.array(z.record(z.string(), z.unknown()))),
  encryptedExperiments: z.optional(z.string()),
  dateUpdated: z.string(),
  /** With `savedGroupReferencesEnabled`: the values of the saved groups the rules reference by id. */
  savedGroups: z.optional(z.record(z.string(), z.array(z.union([z.string(), z.number()])))),
  encryptedSavedGroups: z.optional(z.string()),
});

const clientKeyParams = z.object({
  clientKey: z.string().check(z.maxLength(256), z.regex(/^sdk-[A-Za-z0-9_-]+$/, 'must be an SDK connection key (sdk-...)')),
});

export const getFeaturesForSdk = defineEndpoint({
  operationId: 'getFeaturesForSdk',
  method: 'GET',
  basePath: '/api',
  path: '/features/{clientKey}',
  summary: 'The SDK payload of a client key (public: the key is the only credential)',
  tag: 'sdk-payload',
  permission: 'public',
  params: clientKeyParams,
  response: sdkPayloadBody,
});

export const getSdkPayload = defineEndpoint({
  operationId: 'getSdkPayload',
  method: 'GET',
  path: '/sdk-payload/{key}',
  summary: 'The SDK payload of one of the organization’s client keys',
  tag: 'sdk-payload',
  permission: 'read',
  params: z.object({ key: z.string().check(z.minLength(1), z.maxLength(256)) }),
  response: sdkPayloadBody,
});

/**
 * The longest string remote evaluation takes in `attributes`, at any depth. Conditions match
 * attributes with regular expressions on a backtracking engine, and the route is public: a long
 * string is what makes a slow pattern slow. A URL or user agent fits; `url` itself takes 8192.
 */
export const MAX_ATTRIBUTE_CHARS = 2048;
/** The largest remote evaluation body: anyone may post one, so it is kept far below the 2 MB of keyed routes. */
export const MAX_REMOTE_EVAL_BODY_BYTES = 64 * 1024;

/** The path of the first string in `value` longer than MAX_ATTRIBUTE_CHARS, or undefined. */
function overlongString(value: unknown, path: PropertyKey[]): PropertyKey[] | undefined {
  if (typeof value === 'string') return value.length > MAX_ATTRIBUTE_CHARS ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = overlongString(child, [...path, Array.isArray(value) ? Number(key) : key]);
    if (found) return found;
  }
  return undefined;
}

const attributes = z.record(z.string(), z.unknown()).check(
  z.superRefine((values, ctx) => {
    const path = overlongString(values, []);
    if (path) ctx.addIssue({ code: 'custom', path, input: values, message: `is longer than ${MAX_ATTRIBUTE_CHARS} characters, the most remote evaluation takes` });
  }),
);

/** What a GrowthBook SDK with `remoteEval: true` posts: the user, and what it forces. Unknown fields are ignored, as SDKs add some. */
export const remoteEvalBody = z.object({
  attributes: z.optional(attributes),
  forcedVariations: z.optional(z.record(z.string(), z.number().check(z.int(), z.gte(0)))),
  forcedFeatures: z.optional(z.array(z.tuple([z.string(), z.unknown()])).check(z.maxLength(10_000))),
  url: z.optional(z.string().check(z.maxLength(8192))),
});
export type RemoteEvalBody = z.infer<typeof remoteEvalBody>;

export const postRemoteEval = defineEndpoint({
  operationId: 'postRemoteEval',
  method: 'POST',
  basePath: '/api',
  path: '/eval/{clientKey}',
  summary: 'Remote evaluation: the payload resolved for one user, for a connection with remoteEvalEnabled (public)',
  tag: 'sdk-payload',
  permission: 'public',
  maxBodyBytes: MAX_REMOTE_EVAL_BODY_BYTES,
  params: clientKeyParams,
  body: remoteEvalBody,
  response: sdkPayloadBody,
});

export const sdkPayloadEndpoints = [getFeaturesForSdk, getSdkPayload, postRemoteEval];

/** How long CDNs and browsers keep a payload before they revalidate it, as GrowthBook sends it. */
export const SDK_PAYLOAD_MAX_AGE_SECONDS = 30;
/** As GrowthBook sends them: kept 30 s, then may be served stale for an hour while revalidating, and 10 hours while the API fails. */
export const SDK_PAYLOAD_CACHE_CONTROL = `public, max-age=${SDK_PAYLOAD_MAX_AGE_SECONDS}, stale-while-revalidate=3600, stale-if-error=36000`;
