import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

/** What a connection's payload carries besides its features: each is an optional flag, as in GrowthBook. */
const payloadFlags = {
  includeVisualExperiments: z.optional(z.boolean()),
  includeDraftExperiments: z.optional(z.boolean()),
  includeExperimentNames: z.optional(z.boolean()),
  includeRedirectExperiments: z.optional(z.boolean()),
  includeRuleIds: z.optional(z.boolean()),
  includeProjectIdInMetadata: z.optional(z.boolean()),
  includeCustomFieldsInMetadata: z.optional(z.boolean()),
};

export const sdkConnection = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  organization: z.string(),
  languages: z.array(z.string()),
  sdkVersion: z.optional(z.string()),
  environment: z.string(),
  /** The first project only, for older clients; `projects` has them all. */
  project: z.string(),
  projects: z.optional(z.array(z.string())),
  encryptPayload: z.boolean(),
  encryptionKey: z.string(),
  ...payloadFlags,
  allowedCustomFieldsInMetadata: z.optional(z.array(z.string())),
  includeTagsInMetadata: z.optional(z.boolean()),
  key: z.string(),
  proxyEnabled: z.boolean(),
  proxyHost: z.string(),
  proxySigningKey: z.string(),
  sseEnabled: z.optional(z.boolean()),
  hashSecureAttributes: z.optional(z.boolean()),
  remoteEvalEnabled: z.optional(z.boolean()),
  savedGroupReferencesEnabled: z.optional(z.boolean()),
});
export type SdkConnection = z.infer<typeof sdkConnection>;

/** The settings a client may set, on create and (all optional) on update. */
const settings = {
  // At least 3 characters, spaces included, as GrowthBook counts them; GrowthBook sets no upper limit.
  name: z.string().check(z.minLength(3, 'Name length must be at least 3 characters'), z.maxLength(10_000)),
  // Checked against GrowthBook's SDK languages (and `sdkVersion` against the language's versions) by `resolveSdkVersion`.
  language: z.string().check(z.minLength(1), z.maxLength(64)),
  sdkVersion: z.optional(z.string().check(z.maxLength(64))),
  environment: z.string().check(z.minLength(1), z.maxLength(256)),
  projects: z.optional(stringList),
  encryptPayload: z.optional(z.boolean()),
  ...payloadFlags,
  allowedCustomFieldsInMetadata: z.optional(stringList),
  includeTagsInMetadata: z.optional(z.boolean()),
  proxyEnabled: z.optional(z.boolean()),
  proxyHost: z.optional(z.string().check(z.maxLength(2048))),
  hashSecureAttributes: z.optional(z.boolean()),
  remoteEvalEnabled: z.optional(z.boolean()),
  savedGroupReferencesEnabled: z.optional(z.boolean()),
};

const sdkConnectionResponse = z.object({ sdkConnection });

export const listSdkConnections = defineEndpoint({
  operationId: 'listSdkConnections',
  method: 'GET',
  path: '/sdk-connections',
  summary: 'List SDK connections',
  tag: 'sdk-connections',
  permission: 'read',
  projectScoped: true,
  query: z.extend(paginationQuery, {
    projectId: z.optional(z.string().check(z.maxLength(256))),
    withProxy: z.optional(z.string().check(z.maxLength(16))),
    multiOrg: z.optional(z.string().check(z.maxLength(16))),
  }),
  response: z.extend(z.object({ connections: z.array(sdkConnection) }), paginationFields.shape),
});

export const postSdkConnection = defineEndpoint({
  operationId: 'postSdkConnection',
  method: 'POST',
  path: '/sdk-connections',
  summary: 'Create an SDK connection',
  tag: 'sdk-connections',
  permission: 'manageSDKConnections',
  body: z.strictObject(settings),
  response: sdkConnectionResponse,
});

export const getSdkConnection = defineEndpoint({
  operationId: 'getSdkConnection',
  method: 'GET',
  path: '/sdk-connections/{id}',
  summary: 'Get an SDK connection',
  tag: 'sdk-connections',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: sdkConnectionResponse,
});

export const putSdkConnection = defineEndpoint({
  operationId: 'putSdkConnection',
  method: 'PUT',
  path: '/sdk-connections/{id}',
  summary: 'Update an SDK connection (the fields given)',
  tag: 'sdk-connections',
  permission: 'manageSDKConnections',
  params: idParams,
  body: z.strictObject({
    ...settings,
    name: z.optional(settings.name),
    // "" keeps the connection's language, as in GrowthBook.
    language: z.optional(z.string().check(z.maxLength(64))),
    environment: z.optional(settings.environment),
  }),
  response: sdkConnectionResponse,
});
export type SdkConnectionSettings = z.infer<NonNullable<typeof putSdkConnection.body>>;

export const deleteSdkConnection = defineEndpoint({
  operationId: 'deleteSdkConnection',
  method: 'DELETE',
  path: '/sdk-connections/{id}',
  summary: 'Delete an SDK connection',
  tag: 'sdk-connections',
  permission: 'manageSDKConnections',
  params: idParams,
  response: deletedResponse,
});

export const lookupSdkConnectionByKey = defineEndpoint({
  operationId: 'lookupSdkConnectionByKey',
  method: 'GET',
  path: '/sdk-connections/lookup/{key}',
  summary: 'Find an SDK connection by its client key',
  tag: 'sdk-connections',
  permission: 'read',
  projectScoped: true,
  params: z.object({ key: z.string().check(z.minLength(1), z.maxLength(256)) }),
  response: sdkConnectionResponse,
});

export const sdkConnectionEndpoints = [
  listSdkConnections,
  postSdkConnection,
  getSdkConnection,
  putSdkConnection,
  deleteSdkConnection,
  lookupSdkConnectionByKey,
];
