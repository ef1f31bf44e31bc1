/**
 * One representative request per endpoint, in an order that builds the data the next ones need,
 * with the fewest DynamoDB round trips each request can take.
 */
export type Ids = Record<string, string>;

export interface Step {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  /** Remembers ids from the response for later steps. */
  capture?: (body: any, ids: Ids) => void;
  minimum: { calls: number; why: string };
}

export const scenario: Step[] = [
  {
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: () => '/api/v1/openapi.json',
    minimum: { calls: 0, why: 'generated from the registry' },
  },
  {
    operationId: 'listMembers',
    method: 'GET',
    path: () => '/api/v1/members',
    minimum: { calls: 3, why: 'index keys + page items + teams (for membership)' },
  },
  {
    operationId: 'postSavedGroup',
    method: 'POST',
    path: () => '/api/v1/saved-groups',
    body: () => ({ name: 'Bench group', attributeKey: 'id', values: ['a', 'b'] }),
    capture: (body, ids) => (ids.savedGroupId = body.savedGroup.id),
    minimum: { calls: 1, why: 'one conditional put' },
  },
  {
    operationId: 'getSavedGroup',
    method: 'GET',
    path: (ids) => `/api/v1/saved-groups/${ids.savedGroupId}`,
    minimum: { calls: 1, why: 'one get by id' },
  },
  {
    operationId: 'listSavedGroups',
    method: 'GET',
    path: () => '/api/v1/saved-groups?limit=10',
    minimum: { calls: 2, why: 'index keys + page items' },
  },
  {
    operationId: 'updateSavedGroup',
    method: 'POST',
    path: (ids) => `/api/v1/saved-groups/${ids.savedGroupId}`,
    body: () => ({ values: ['a', 'b', 'c'] }),
    minimum: { calls: 2, why: 'read + write conditional on its version' },
  },
  {
    operationId: 'deleteSavedGroup',
    method: 'DELETE',
    path: (ids) => `/api/v1/saved-groups/${ids.savedGroupId}`,
    minimum: { calls: 2, why: 'read (project permission) + delete conditional on its version' },
  },
];
