import * as z from 'zod';
import { defineEndpoint } from './spec';
import { deletedResponse, stringList } from './common';
import { jsonCondition } from './saved-groups';
import { customMetricSlice, prerequisite, statsEngine } from './experiments';

/** Server-made template ids start with this; bulk import adds it to ids that lack it. */
export const TEMPLATE_ID_PREFIX = 'tmplt__';

const targeting = z.strictObject({
  coverage: z.number().min(0).max(1),
  savedGroups: z
    .array(z.strictObject({ match: z.enum(['all', 'none', 'any']), ids: z.array(z.string().min(1)) }))
    .optional(),
  prerequisites: z.array(prerequisite).optional(),
  condition: jsonCondition,
});

const templateMetadata = z.strictObject({
  name: z.string().trim().min(1).max(256),
  description: z.string().max(10_000).optional(),
});

const idList = z.array(z.string().min(1).max(256)).max(1000);

/** The fields a client sets on a template; create requires some of them. */
const templateFields = z.strictObject({
  project: z.string().max(256).optional(),
  templateMetadata,
  type: z.enum(['standard']),
  hypothesis: z.string().max(10_000).optional(),
  description: z.string().max(10_000).optional(),
  tags: stringList.optional(),
  customFields: z.record(z.string(), z.string()).optional(),
  datasource: z.string().max(256),
  exposureQueryId: z.string().max(256),
  hashAttribute: z.string().max(256).optional(),
  fallbackAttribute: z.string().max(256).optional(),
  disableStickyBucketing: z.boolean().optional(),
  goalMetrics: idList.optional(),
  secondaryMetrics: idList.optional(),
  guardrailMetrics: idList.optional(),
  activationMetric: z.string().max(256).optional(),
  statsEngine,
  segment: z.string().max(256).optional(),
  skipPartialData: z.boolean().optional(),
  targeting,
  customMetricSlices: z.array(customMetricSlice).optional(),
});
export type TemplateFields = z.infer<typeof templateFields>;

export const experimentTemplate = templateFields.extend({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  owner: z.string(),
  ownerEmail: z.string().optional(),
  templateMetadata: templateMetadata.extend({ name: z.string() }),
});
export type ExperimentTemplate = z.infer<typeof experimentTemplate>;

const templateParams = z.object({ id: z.string().min(1).max(256) });
const templateResponse = z.object({ experimentTemplate });

export const listExperimentTemplates = defineEndpoint({
  operationId: 'listExperimentTemplates',
  method: 'GET',
  path: '/experiment-templates',
  summary: 'List experiment templates',
  tag: 'experiment-templates',
  permission: 'read',
  query: z.object({ projectId: z.string().min(1).optional() }),
  response: z.object({ experimentTemplates: z.array(experimentTemplate) }),
});

export const createExperimentTemplate = defineEndpoint({
  operationId: 'createExperimentTemplate',
  method: 'POST',
  path: '/experiment-templates',
  summary: 'Create an experiment template',
  tag: 'experiment-templates',
  permission: 'manageTemplates',
  projectScoped: true,
  body: templateFields,
  response: templateResponse,
});

export const getExperimentTemplate = defineEndpoint({
  operationId: 'getExperimentTemplate',
  method: 'GET',
  path: '/experiment-templates/{id}',
  summary: 'Get an experiment template',
  tag: 'experiment-templates',
  permission: 'read',
  params: templateParams,
  response: templateResponse,
});

export const updateExperimentTemplate = defineEndpoint({
  operationId: 'updateExperimentTemplate',
  method: 'PUT',
  path: '/experiment-templates/{id}',
  summary: 'Partially update an experiment template',
  tag: 'experiment-templates',
  permission: 'manageTemplates',
  projectScoped: true,
  params: templateParams,
  body: templateFields.partial(),
  response: templateResponse,
});

export const deleteExperimentTemplate = defineEndpoint({
  operationId: 'deleteExperimentTemplate',
  method: 'DELETE',
  path: '/experiment-templates/{id}',
  summary: 'Delete an experiment template',
  tag: 'experiment-templates',
  permission: 'manageTemplates',
  projectScoped: true,
  params: templateParams,
  response: deletedResponse,
});

export const bulkImportExperimentTemplates = defineEndpoint({
  operationId: 'bulkImportExperimentTemplates',
  method: 'POST',
  path: '/experiment-templates/bulk-import',
  summary: 'Create or update many experiment templates at once',
  tag: 'experiment-templates',
  permission: 'manageTemplates',
  projectScoped: true,
  body: z.strictObject({
    templates: z.array(z.strictObject({ id: z.string().trim().min(1).max(256), data: templateFields })).max(1000),
  }),
  response: z.object({ added: z.number().int(), updated: z.number().int() }),
});

export const experimentTemplateEndpoints = [
  listExperimentTemplates,
  createExperimentTemplate,
  getExperimentTemplate,
  updateExperimentTemplate,
  deleteExperimentTemplate,
  bulkImportExperimentTemplates,
];
