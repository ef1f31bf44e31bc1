import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, paginationFields, paginationQuery, stringList } from './common';

export const sdkConnection = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  organization: z.string(),
  languages: z.array(z.string()),
  sdkVersion: z.string().optional(),
  environment: z.string(),
  /** The first project only, for older clients; `projects` has them all. */
  project: z.string(),
  projects: z.array(z.string()).optional(),
  encryptPayload: z.boolean(),
  encryptionKey: z.string(),
  includeVisualExperiments: z.boolean().optional(),
  includeDraftExperiments: z.boolean().optional(),
  includeExperimentNames: z.boolean().optional(),
  includeRedirectExperiments: z.boolean().optional(),
  includeRuleIds: z.boolean().optional(),
  includeProjectIdInMetadata: z.boolean().optional(),
  includeCustomFieldsInMetadata: z.boolean().optional(),
  allowedCustomFieldsInMetadata: z.array(z.string()).optional(),
  includeTagsInMetadata: z.boolean().optional(),
  key: z.string(),
  proxyEnabled: z.boolean(),
  proxyHost: z.string(),
  proxySigningKey: z.string(),
  sseEnabled: z.boolean().optional(),
  hashSecureAttributes: z.boolean().optional(),
  remoteEvalEnabled: z.boolean().optional(),
  savedGroupReferencesEnabled: z.boolean().optional(),
});
export type SdkConnection = z.infer<typeof sdkConnection>;

/** The settings a client may set, on create and (all optional) on update. */
const settings = {
  // At least 3 characters, spaces included, as GrowthBook counts them; GrowthBook sets no upper limit.
  name: z.string().min(3, 'Name length must be at least 3 characters').max(10_000),
  // Checked against GrowthBook's SDK languages (and `sdkVersion` against the language's versions) by `resolveSdkVersion`.
  language: z.string().min(1).max(64),
  sdkVersion: z.string().max(64).optional(),
  environment: z.string().min(1).max(256),
  projects: stringList.optional(),
  encryptPayload: z.boolean().optional(),
  includeVisualExperiments: z.boolean().optional(),
  includeDraftExperiments: z.boolean().optional(),
  includeExperimentNames: z.boolean().optional(),
  includeRedirectExperiments: z.boolean().optional(),
  includeRuleIds: z.boolean().optional(),
  includeProjectIdInMetadata: z.boolean().optional(),
  includeCustomFieldsInMetadata: z.boolean().optional(),
  allowedCustomFieldsInMetadata: stringList.optional(),
  includeTagsInMetadata: z.boolean().optional(),
  proxyEnabled: z.boolean().optional(),
  proxyHost: z.string().max(2048).optional(),
  hashSecureAttributes: z.boolean().optional(),
  remoteEvalEnabled: z.boolean().optional(),
  savedGroupReferencesEnabled: z.boolean().optional(),
};

const sdkConnectionResponse = z.object({ sdkConnection });

export const listSdkConnections = defineEndpoint({
  operationId: 'listSdkConnections',
  method: 'GET',
  path: '/sdk-connections',
  summary: 'List SDK connections',
  tag: 'sdk-connections',
  permission: 'read',
  query: paginationQuery.extend({
    projectId: z.string().max(256).optional(),
    withProxy: z.string().max(16).optional(),
    multiOrg: z.string().max(16).optional(),
  }),
  response: z.object({ connections: z.array(sdkConnection) }).extend(paginationFields.shape),
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
    name: settings.name.optional(),
    // "" keeps the connection's language, as in GrowthBook.
    language: z.string().max(64).optional(),
    environment: settings.environment.optional(),
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
  params: z.object({ key: z.string().min(1).max(256) }),
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
