import * as z from 'zod';
import { defineEndpoint } from './spec';

const sdkRule = z.record(z.string(), z.unknown());

/** The body GrowthBook SDKs fetch: `features` in clear, or `encryptedFeatures` when the connection encrypts. */
export const sdkPayloadBody = z.object({
  status: z.literal(200),
  features: z.record(z.string(), z.object({ defaultValue: z.unknown(), rules: z.array(sdkRule).optional() })),
  encryptedFeatures: z.string().optional(),
  /** Visual-editor and URL-redirect experiments, for connections that include them. */
  experiments: z.array(z.record(z.string(), z.unknown())).optional(),
  encryptedExperiments: z.string().optional(),
  dateUpdated: z.string(),
  /** With `savedGroupReferencesEnabled`: the values of the saved groups the rules reference by id. */
  savedGroups: z.record(z.string(), z.array(z.union([z.string(), z.number()]))).optional(),
  encryptedSavedGroups: z.string().optional(),
});

const clientKeyParams = z.object({
  clientKey: z.string().max(256).regex(/^sdk-[A-Za-z0-9_-]+$/, 'must be an SDK connection key (sdk-...)'),
});

export const getFeaturesForSdk = defineEndpoint({
  operationId: 'getFeaturesForSdk',
  method: 'GET',
  basePath: '/api',
  path: '/features/{clientKey}',
  summary: 'The SDK payload of a client key (public: the key is the only credential)',
  tag: 'sdk-payload',
  permission: 'public',
  params: z.object({
    clientKey: z.string().max(256).regex(/^sdk-[A-Za-z0-9_-]+$/, 'must be an SDK connection key (sdk-...)'),
  }),
  response: sdkPayloadBody,
});

export const getSdkPayload = defineEndpoint({
  operationId: 'getSdkPayload',
  method: 'GET',
  path: '/sdk-payload/{key}',
  summary: 'The SDK payload of one of the organization’s client keys',
  tag: 'sdk-payload',
  permission: 'read',
  params: z.object({ key: z.string().min(1).max(256) }),
  response: sdkPayloadBody,
});

/** What a GrowthBook SDK with `remoteEval: true` posts: the user, and what it forces. Unknown fields are ignored, as SDKs add some. */
export const remoteEvalBody = z.object({
  attributes: z.record(z.string(), z.unknown()).optional(),
  forcedVariations: z.record(z.string(), z.number().int().min(0)).optional(),
  forcedFeatures: z.array(z.tuple([z.string(), z.unknown()])).max(10_000).optional(),
  url: z.string().max(8192).optional(),
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
  params: clientKeyParams,
  body: remoteEvalBody,
  response: sdkPayloadBody,
});

export const sdkPayloadEndpoints = [getFeaturesForSdk, getSdkPayload, postRemoteEval];

/** How long CDNs and browsers keep a payload before they revalidate it, as GrowthBook sends it. */
export const SDK_PAYLOAD_MAX_AGE_SECONDS = 30;
/** As GrowthBook sends them: kept 30 s, then may be served stale for an hour while revalidating, and 10 hours while the API fails. */
export const SDK_PAYLOAD_CACHE_CONTROL = `public, max-age=${SDK_PAYLOAD_MAX_AGE_SECONDS}, stale-while-revalidate=3600, stale-if-error=36000`;
