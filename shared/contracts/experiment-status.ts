import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams } from './common';
import { experimentWithEnhancedStatus } from './experiments';

// Starting, stopping and scheduling an experiment, and the names list: GrowthBook's
// postExperimentStart, postExperimentStop, putExperimentSchedule and getExperimentNames.

const dateTime = z.iso.datetime({ offset: true });

export const experimentResults = z.enum(['dnf', 'won', 'lost', 'inconclusive']);

const stopBody = z.strictObject({
  results: experimentResults,
  winnerVariationId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  releasedVariationId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  enableTemporaryRollout: z.optional(z.boolean()),
  reason: z.optional(z.string().check(z.maxLength(10_000))),
  analysis: z.optional(z.string().check(z.maxLength(100_000))),
  dateEnded: z.optional(dateTime),
});
export type StopExperimentBody = z.infer<typeof stopBody>;

// The whole desired schedule: what is absent is cleared. Scheduled stops are named so a request
// that sends them gets a clear refusal rather than an unknown-field error (see the handler).
const scheduleBody = z.strictObject({
  startAt: z.optional(z.nullable(dateTime)),
  stopAt: z.optional(z.nullable(dateTime)),
  stopAfter: z.optional(z.unknown()),
  scheduledStopPlan: z.optional(z.unknown()),
});
export type PutExperimentScheduleBody = z.infer<typeof scheduleBody>;

export const postExperimentStart = defineEndpoint({
  operationId: 'postExperimentStart',
  method: 'POST',
  path: '/experiments/{id}/start',
  summary: 'Start a draft experiment (or stage its scheduled start)',
  tag: 'experiments',
  permission: 'runExperiments',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({ skipChecklist: z.optional(z.boolean()) }),
  response: z.object({ experiment: experimentWithEnhancedStatus, message: z.optional(z.string()) }),
});

export const postExperimentStop = defineEndpoint({
  operationId: 'postExperimentStop',
  method: 'POST',
  path: '/experiments/{id}/stop',
  summary: 'Stop a running experiment and record its results, or change the results of a stopped one',
  tag: 'experiments',
  permission: 'runExperiments',
  projectScoped: true,
  params: idParams,
  body: stopBody,
  response: z.object({ experiment: experimentWithEnhancedStatus }),
});

export const putExperimentSchedule = defineEndpoint({
  operationId: 'putExperimentSchedule',
  method: 'PUT',
  path: '/experiments/{id}/schedule',
  summary: "Replace an experiment's scheduled start",
  tag: 'experiments',
  permission: 'runExperiments',
  projectScoped: true,
  params: idParams,
  body: scheduleBody,
  response: z.object({ experiment: experimentWithEnhancedStatus, warnings: z.optional(z.array(z.string())) }),
});

export const getExperimentNames = defineEndpoint({
  operationId: 'getExperimentNames',
  method: 'GET',
  path: '/experiment-names',
  summary: 'The id and name of every experiment that is not archived',
  tag: 'experiments',
  permission: 'read',
  projectScoped: true,
  query: z.strictObject({ projectId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))) }),
  response: z.object({ experiments: z.array(z.object({ id: z.string(), name: z.string() })) }),
});

export const experimentStatusEndpoints = [postExperimentStart, postExperimentStop, putExperimentSchedule, getExperimentNames];
