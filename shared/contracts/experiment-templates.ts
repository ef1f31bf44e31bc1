import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, stringList } from './common';
import { jsonCondition } from './saved-groups';
import { customMetricSlice, prerequisite, statsEngine } from './experiments';

/** Server-made template ids start with this; bulk import adds it to ids that lack it. */
export const TEMPLATE_ID_PREFIX = 'tmplt__';

const targeting = z.strictObject({
  coverage: z.number().check(z.gte(0), z.lte(1)),
  savedGroups: z.optional(
    z.array(z.strictObject({ match: z.enum(['all', 'none', 'any']), ids: z.array(z.string().check(z.minLength(1))) })),
  ),
  prerequisites: z.optional(z.array(prerequisite)),
  condition: jsonCondition,
});

const templateMetadata = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  description: z.optional(z.string().check(z.maxLength(10_000))),
});

const idList = z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(1000));

/** The fields a client sets on a template; create requires some of them. */
const templateFields = z.strictObject({
  project: z.optional(z.string().check(z.maxLength(256))),
  templateMetadata,
  type: z.enum(['standard']),
  hypothesis: z.optional(z.string().check(z.maxLength(10_000))),
  description: z.optional(z.string().check(z.maxLength(10_000))),
  tags: z.optional(stringList),
  customFields: z.optional(z.record(z.string(), z.string())),
  datasource: z.string().check(z.maxLength(256)),
  exposureQueryId: z.string().check(z.maxLength(256)),
  hashAttribute: z.optional(z.string().check(z.maxLength(256))),
  fallbackAttribute: z.optional(z.string().check(z.maxLength(256))),
  disableStickyBucketing: z.optional(z.boolean()),
  goalMetrics: z.optional(idList),
  secondaryMetrics: z.optional(idList),
  guardrailMetrics: z.optional(idList),
  activationMetric: z.optional(z.string().check(z.maxLength(256))),
  statsEngine,
  segment: z.optional(z.string().check(z.maxLength(256))),
  skipPartialData: z.optional(z.boolean()),
  targeting,
  customMetricSlices: z.optional(z.array(customMetricSlice)),
});
export type TemplateFields = z.infer<typeof templateFields>;

export const experimentTemplate = z.extend(templateFields, {
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  owner: z.string(),
  ownerEmail: z.optional(z.string()),
  templateMetadata: z.extend(templateMetadata, { name: z.string() }),
});
export type ExperimentTemplate = z.infer<typeof experimentTemplate>;

const templateParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(256)) });
const templateResponse = z.object({ experimentTemplate });

export const listExperimentTemplates = defineEndpoint({
  operationId: 'listExperimentTemplates',
  method: 'GET',
  path: '/experiment-templates',
  summary: 'List experiment templates',
  tag: 'experiment-templates',
  permission: 'read',
  projectScoped: true,
  query: z.object({ projectId: z.optional(z.string().check(z.minLength(1))) }),
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
  projectScoped: true,
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
  body: z.partial(templateFields),
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
    templates: z
      .array(z.strictObject({ id: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)), data: templateFields }))
      .check(z.maxLength(1000)),
  }),
  response: z.object({ added: z.int(), updated: z.int() }),
});

export const experimentTemplateEndpoints = [
  listExperimentTemplates,
  createExperimentTemplate,
  getExperimentTemplate,
  updateExperimentTemplate,
  deleteExperimentTemplate,
  bulkImportExperimentTemplates,
];
