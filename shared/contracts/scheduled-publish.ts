import * as z from './zod';
import { defineEndpoint } from './spec';
import { featureRevisionV2 } from './feature-revisions';

const flag = z.optional(z.boolean());

export const postFeatureRevisionSchedulePublishV2 = defineEndpoint({
  operationId: 'postFeatureRevisionSchedulePublishV2',
  method: 'POST',
  basePath: '/api/v2',
  path: '/features/{id}/revisions/{version}/schedule-publish',
  summary: 'Schedule (or cancel) a deferred publish for a draft revision',
  tag: 'feature-revisions',
  permission: 'publishFeatures',
  projectScoped: true,
  params: z.object({
    id: z.string().check(z.minLength(1), z.maxLength(256)),
    version: z.pipe(z.string().check(z.regex(/^[1-9][0-9]{0,8}$/, 'must be a revision number')), z.transform(Number)),
  }),
  body: z.strictObject({
    // RFC 3339; `null` cancels a pending schedule.
    scheduledPublishAt: z.nullable(z.string().check(z.maxLength(64))),
    ignoreWarnings: flag,
    skipSchemaValidation: flag,
    skipHooks: flag,
    lockEdits: flag,
    lockOthers: flag,
    bypassApproval: flag,
  }),
  response: z.object({ revision: featureRevisionV2 }),
});

export const scheduledPublishEndpoints = [postFeatureRevisionSchedulePublishV2];
