import * as z from './zod';

/**
 * Monitored ramps (GrowthBook 5.0.1): a schedule's `monitoringConfig`, the read-only `monitoringStatus`
 * on the schedule, and the `GET /ramp-schedules/{id}/status` answer. The endpoints that use them are
 * in `ramp-monitoring-endpoints.ts`; `ramp-schedules.ts` reads the config and status shapes from here.
 */

/** What a monitoring signal makes the ramp do: roll back, hold the step, or only report it. */
export const healthActions = ['rollback', 'hold', 'warn'] as const;
export type HealthAction = (typeof healthActions)[number];
export const monitoringModes = ['auto', 'manual'] as const;
export type MonitoringMode = (typeof monitoringModes)[number];

const shortId = z.string().check(z.minLength(1), z.maxLength(256));
const metricIds = z.array(shortId).check(z.maxLength(100));

/** The minimum snapshot cadence GrowthBook accepts, in minutes. */
export const MIN_UPDATE_MINUTES = 10;

/**
 * `monitoringConfig` as create, PUT and PUT /monitoring accept it: GrowthBook's fields, with at least
 * one guardrail metric and a cadence of at least 10 minutes. `autoUpdate` is the legacy spelling of
 * `monitoringMode` (`false` = manual); `autoRollback` is accepted and kept, as GrowthBook's create does.
 */
export const monitoringConfigInput = z.strictObject({
  datasourceId: shortId,
  exposureQueryId: shortId,
  guardrailMetricIds: metricIds.check(z.minLength(1, 'needs at least one guardrail metric')),
  signalMetricIds: z.optional(metricIds),
  updateScheduleMinutes: z.optional(z.nullable(z.number().check(z.gte(MIN_UPDATE_MINUTES), z.lte(30 * 24 * 60)))),
  monitoringMode: z.optional(z.enum(monitoringModes)),
  autoUpdate: z.optional(z.boolean()),
  autoRollback: z.optional(z.boolean()),
  srmAction: z.optional(z.enum(healthActions)),
  noTrafficAction: z.optional(z.enum(healthActions)),
  noTrafficGracePeriodHours: z.optional(z.nullable(z.number().check(z.positive(), z.lte(24 * 365)))),
  multipleExposureAction: z.optional(z.enum(healthActions)),
});
export type MonitoringConfigInput = z.infer<typeof monitoringConfigInput>;

/** `monitoringConfig` as a schedule answers it (and stores it). */
export const monitoringConfig = z.object({
  datasourceId: z.string(),
  exposureQueryId: z.string(),
  guardrailMetricIds: z.array(z.string()),
  signalMetricIds: z.optional(z.array(z.string())),
  updateScheduleMinutes: z.optional(z.nullable(z.number())),
  monitoringMode: z.optional(z.enum(monitoringModes)),
  autoUpdate: z.optional(z.boolean()),
  srmAction: z.optional(z.enum(healthActions)),
  noTrafficAction: z.optional(z.enum(healthActions)),
  noTrafficGracePeriodHours: z.optional(z.nullable(z.number())),
  multipleExposureAction: z.optional(z.enum(healthActions)),
});
export type MonitoringConfig = z.infer<typeof monitoringConfig>;

/** The schedule's read-only `monitoringStatus`, present when it has a `monitoringConfig`. */
export const monitoringStatus = z.object({
  safeRolloutId: z.optional(z.nullable(z.string())),
  monitoringMode: z.enum(monitoringModes),
  autoUpdate: z.boolean(),
  effectiveAutoUpdate: z.boolean(),
  blockedReason: z.optional(z.nullable(z.string())),
  nextSnapshotAt: z.optional(z.nullable(z.string())),
  currentStepMonitored: z.boolean(),
});
export type MonitoringStatus = z.infer<typeof monitoringStatus>;

export const decisions = ['advance', 'hold', 'rollback', 'pause'] as const;
export const healthSignals = [
  'guardrail-failing',
  'signal-regression',
  'srm',
  'multiple-exposures',
  'no-traffic',
  'below-min-sample',
  'healthy',
  'awaiting-data',
] as const;
export type HealthSignal = (typeof healthSignals)[number];

const metricHealth = z.object({
  id: z.string(),
  name: z.optional(z.string()),
  status: z.enum(['failing', 'within-bounds', 'not-enough-data']),
  role: z.enum(['guardrail', 'signal']),
  relativeLift: z.optional(z.number()),
  absoluteLift: z.optional(z.number()),
  ciHarmBound: z.optional(z.number()),
  pValue: z.optional(z.number()),
});
export type MetricHealth = z.infer<typeof metricHealth>;

export const trafficHealth = z.object({
  totalUsers: z.number(),
  variationUnits: z.array(z.number()),
  srm: z.optional(z.object({ pValue: z.number(), status: z.enum(['ok', 'failing']) })),
  multipleExposures: z.optional(z.object({ count: z.number(), percent: z.number(), status: z.enum(['ok', 'warning']) })),
});
export type TrafficHealth = z.infer<typeof trafficHealth>;

/** GrowthBook's `healthSummary`: the evaluator's decision, its reason, every active signal, traffic and per-metric health. */
export const healthSummary = z.object({
  safeToAdvance: z.boolean(),
  decision: z.enum(decisions),
  decisionReason: z.optional(z.string()),
  signals: z.array(z.enum(healthSignals)),
  snapshotAt: z.optional(z.string()),
  traffic: z.optional(trafficHealth),
  metrics: z.record(z.string(), metricHealth),
});
export type HealthSummary = z.infer<typeof healthSummary>;

/** `GET /ramp-schedules/{id}/status`. */
export const rampScheduleStatus = z.object({
  id: z.string(),
  status: z.string(),
  currentStepIndex: z.number(),
  totalSteps: z.number(),
  lockdownMode: z.optional(z.string()),
  startedAt: z.optional(z.nullable(z.string())),
  lastRollbackAt: z.optional(z.nullable(z.string())),
  lastRollbackReason: z.optional(z.nullable(z.string())),
  monitoring: z.optional(
    z.object({
      enabled: z.boolean(),
      monitoringMode: z.enum(monitoringModes),
      autoUpdate: z.boolean(),
      effectiveAutoUpdate: z.boolean(),
      blockedReason: z.optional(z.nullable(z.string())),
      currentStepMonitored: z.boolean(),
      nextSnapshotAt: z.optional(z.nullable(z.string())),
      safeRolloutId: z.optional(z.nullable(z.string())),
    }),
  ),
  healthSummary: z.optional(healthSummary),
});
export type RampScheduleStatus = z.infer<typeof rampScheduleStatus>;

export const setMonitoringModeBody = z.strictObject({ monitoringMode: z.enum(monitoringModes) });
export const setAutoUpdateBody = z.strictObject({ enabled: z.boolean() });
