import * as z from './zod';
import { defineEndpoint, type EndpointSpec } from './spec';
import { deletedResponse, idParams } from './common';
import { jsonCondition } from './saved-groups';
import { lockdownConfig } from './ramp-schedules';

/** Template ids start with this, as GrowthBook's. */
export const RAMP_TEMPLATE_ID_PREFIX = 'rst_';

const shortId = z.string().check(z.minLength(1), z.maxLength(256));
/** A rule condition: a JSON object as a string, or empty for none. */
const ruleCondition = z.union([z.literal(''), jsonCondition]);
const MAX_INTERVAL_SECONDS = 10 * 365 * 24 * 3600;
const savedGroups = z.array(z.strictObject({ match: z.enum(['all', 'none', 'any']), ids: z.array(shortId).check(z.maxLength(100)) })).check(z.maxLength(100));
const prerequisites = z.array(z.strictObject({ id: shortId, condition: ruleCondition })).check(z.maxLength(100));
const environments = z.array(shortId).check(z.maxLength(100));
const health = z.enum(['rollback', 'hold', 'warn']);

/** A template's patch: GrowthBook's rule patch without `force` (not portable across value types). */
const templatePatch = z.strictObject({
  ruleId: shortId,
  coverage: z.optional(z.nullable(z.number().check(z.gte(0), z.lte(1)))),
  condition: z.optional(z.nullable(ruleCondition)),
  savedGroups: z.optional(z.nullable(savedGroups)),
  prerequisites: z.optional(z.nullable(prerequisites)),
  allEnvironments: z.optional(z.nullable(z.boolean())),
  environments: z.optional(z.nullable(environments)),
  enabled: z.optional(z.nullable(z.boolean())),
});

const templateAction = z.strictObject({ targetType: z.literal('feature-rule'), targetId: shortId, patch: templatePatch });

/** GrowthBook 5's step: a time hold (`interval` seconds, null for none) and gates (approval, sample size). */
export const templateStep = z.strictObject({
  interval: z.nullable(z.number().check(z.positive(), z.lte(MAX_INTERVAL_SECONDS))),
  approvalNotes: z.optional(z.nullable(z.string().check(z.maxLength(10_000)))),
  monitored: z.optional(z.boolean()),
  holdConditions: z.optional(
    z.strictObject({
      minSampleSize: z.optional(z.number().check(z.int(), z.positive())),
      requiresApproval: z.optional(z.boolean()),
    }),
  ),
  actions: z.array(templateAction).check(z.maxLength(100)),
});
export type TemplateStep = z.infer<typeof templateStep>;

/** The final state a ramp made from the template reaches when it completes. */
export const templateEndPatch = z.strictObject({
  coverage: z.optional(z.number().check(z.gte(0), z.lte(1))),
  condition: z.optional(ruleCondition),
  savedGroups: z.optional(savedGroups),
  prerequisites: z.optional(prerequisites),
  allEnvironments: z.optional(z.boolean()),
  environments: z.optional(environments),
});
export type TemplateEndPatch = z.infer<typeof templateEndPatch>;

/** GrowthBook 5's monitoring settings, kept with the template as given. */
export const monitoringConfig = z.strictObject({
  datasourceId: shortId,
  exposureQueryId: shortId,
  guardrailMetricIds: z.array(shortId).check(z.minLength(1), z.maxLength(100)),
  signalMetricIds: z.optional(z.array(shortId).check(z.maxLength(100))),
  updateScheduleMinutes: z.optional(z.nullable(z.number().check(z.gte(10)))),
  monitoringMode: z.optional(z.enum(['auto', 'manual'])),
  autoUpdate: z.optional(z.boolean()),
  srmAction: z.optional(health),
  noTrafficAction: z.optional(health),
  noTrafficGracePeriodHours: z.optional(z.nullable(z.number().check(z.positive()))),
  multipleExposureAction: z.optional(health),
});

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));

const templateFields = {
  name,
  steps: z.array(templateStep).check(z.maxLength(100)),
  endPatch: z.optional(templateEndPatch),
  official: z.optional(z.boolean()),
  monitoringConfig: z.optional(z.nullable(monitoringConfig)),
  lockdownConfig: z.optional(lockdownConfig),
  order: z.optional(z.number().check(z.gte(-1e9), z.lte(1e9))),
};

export const createTemplateBody = z.strictObject(templateFields);
export type CreateTemplateBody = z.infer<typeof createTemplateBody>;
export const updateTemplateBody = z.partial(z.strictObject(templateFields));
export type UpdateTemplateBody = z.infer<typeof updateTemplateBody>;

export const rampScheduleTemplate = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  steps: z.array(templateStep),
  endPatch: z.optional(templateEndPatch),
  official: z.optional(z.boolean()),
  monitoringConfig: z.optional(z.nullable(monitoringConfig)),
  lockdownConfig: z.optional(lockdownConfig),
  order: z.number(),
});
export type RampScheduleTemplate = z.infer<typeof rampScheduleTemplate>;

const tag = 'ramp-schedule-templates';
const templateResponse = z.object({ rampScheduleTemplate });

export const listRampScheduleTemplates = defineEndpoint({
  operationId: 'listRampScheduleTemplates',
  method: 'GET',
  path: '/ramp-schedule-templates',
  summary: 'List ramp schedule templates, in their display order',
  tag,
  permission: 'read',
  // No filters: an unknown query parameter is refused like on every list.
  query: z.object({}),
  response: z.object({ rampScheduleTemplates: z.array(rampScheduleTemplate) }),
});

export const createRampScheduleTemplate = defineEndpoint({
  operationId: 'createRampScheduleTemplate',
  method: 'POST',
  path: '/ramp-schedule-templates',
  summary: 'Create a ramp schedule template (appended to the order unless `order` is given)',
  tag,
  permission: 'manageFeatures',
  body: createTemplateBody,
  response: templateResponse,
});

export const getRampScheduleTemplate = defineEndpoint({
  operationId: 'getRampScheduleTemplate',
  method: 'GET',
  path: '/ramp-schedule-templates/{id}',
  summary: 'Get a ramp schedule template',
  tag,
  permission: 'read',
  params: idParams,
  response: templateResponse,
});

export const updateRampScheduleTemplate = defineEndpoint({
  operationId: 'updateRampScheduleTemplate',
  method: 'PUT',
  path: '/ramp-schedule-templates/{id}',
  summary: 'Change a ramp schedule template (fields left out stay)',
  tag,
  permission: 'manageFeatures',
  params: idParams,
  body: updateTemplateBody,
  response: templateResponse,
});

export const deleteRampScheduleTemplate = defineEndpoint({
  operationId: 'deleteRampScheduleTemplate',
  method: 'DELETE',
  path: '/ramp-schedule-templates/{id}',
  summary: 'Delete a ramp schedule template (ramps made from it keep their steps)',
  tag,
  permission: 'manageFeatures',
  params: idParams,
  response: deletedResponse,
});

/** Every ramp-schedule-template endpoint. */
export const rampScheduleTemplateEndpoints: EndpointSpec[] = [
  listRampScheduleTemplates,
  createRampScheduleTemplate,
  getRampScheduleTemplate,
  updateRampScheduleTemplate,
  deleteRampScheduleTemplate,
];
