import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, stringList } from './common';

// Metric groups: named lists of metrics of one datasource, added to experiments together.

export const metricGroup = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  owner: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  projects: z.array(z.string()),
  metrics: z.array(z.string()),
  datasource: z.string(),
  archived: z.boolean(),
});
export type MetricGroup = z.infer<typeof metricGroup>;

const createBody = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  description: z.string().check(z.maxLength(10_000)),
  tags: z.optional(stringList),
  projects: stringList,
  metrics: z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(1000)),
  datasource: z.string().check(z.minLength(1), z.maxLength(256)),
});
const metricGroupResponse = z.object({ metricGroup });

export const listMetricGroups = defineEndpoint({
  operationId: 'listMetricGroups',
  method: 'GET',
  path: '/metric-groups',
  summary: 'List metric groups',
  tag: 'metric-groups',
  permission: 'read',
  projectScoped: true,
  query: z.strictObject({}),
  response: z.object({ metricGroups: z.array(metricGroup) }),
});

export const createMetricGroup = defineEndpoint({
  operationId: 'createMetricGroup',
  method: 'POST',
  path: '/metric-groups',
  summary: 'Create a metric group',
  tag: 'metric-groups',
  permission: 'createMetricGroups',
  body: createBody,
  response: metricGroupResponse,
});

export const getMetricGroup = defineEndpoint({
  operationId: 'getMetricGroup',
  method: 'GET',
  path: '/metric-groups/{id}',
  summary: 'Get a metric group',
  tag: 'metric-groups',
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: metricGroupResponse,
});

export const updateMetricGroup = defineEndpoint({
  operationId: 'updateMetricGroup',
  method: 'PUT',
  path: '/metric-groups/{id}',
  summary: 'Update a metric group',
  tag: 'metric-groups',
  permission: 'createMetricGroups',
  params: idParams,
  body: z.partial(z.extend(createBody, { archived: z.boolean() })),
  response: metricGroupResponse,
});

export const deleteMetricGroup = defineEndpoint({
  operationId: 'deleteMetricGroup',
  method: 'DELETE',
  path: '/metric-groups/{id}',
  summary: 'Delete a metric group',
  tag: 'metric-groups',
  permission: 'createMetricGroups',
  params: idParams,
  response: deletedResponse,
});

export const metricGroupEndpoints = [listMetricGroups, createMetricGroup, getMetricGroup, updateMetricGroup, deleteMetricGroup];
