import { InvalidInputError } from '../errors';
import type {
  Experiment,
  ExperimentPhase,
  ExperimentVariation,
  PhaseInput,
  PostExperimentBody,
  UpdateExperimentBody,
  VariationInput,
} from '../contracts/experiments';
import type { ExperimentTemplate } from '../contracts/experiment-templates';
import { newId } from '../ids';
import { withOwner, type OwnerFields } from './owner';

type Settings = Experiment['settings'];
type MetricOverride = NonNullable<Settings['metricOverrides']>[number];

const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** GrowthBook's default for the sequential testing tuning parameter. */
export const DEFAULT_SEQUENTIAL_TUNING = 5000;
/** Weights may be rounded by clients (3 x 0.3333); they must add up to 1 within this much. */
const WEIGHT_TOLERANCE = 0.001;

/**
 * The variations of an experiment. A variation keeps the id it is given, else the id of the
 * current variation with the same key (so rules that point at it keep working), else a new one.
 */
export function buildVariations(inputs: VariationInput[], current: ExperimentVariation[] = []): ExperimentVariation[] {
  const variations = inputs.map((input) => ({
    variationId: input.id ?? current.find((v) => v.key === input.key)?.variationId ?? newId('var_'),
    key: input.key,
    name: input.name,
    description: input.description ?? '',
    screenshots: (input.screenshots ?? []).map((s) => s.path),
  }));
  assertUnique(variations.map((v) => v.variationId), 'variations', 'id');
  assertUnique(variations.map((v) => v.key), 'variations', 'key');
  return variations;
}

function assertUnique(values: string[], list: string, field: string): void {
  const index = values.findIndex((value, i) => values.indexOf(value) !== i);
  if (index >= 0) throw invalid(`${list}.${index}.${field}`, `${values[index]} is used by another variation`);
}

/** Equal weights, one per variation. */
const equalSplit = (variations: ExperimentVariation[]) =>
  variations.map((v) => ({ variationId: v.variationId, weight: 1 / variations.length }));

/** One phase as the API shows it, from its input; `field` names it in errors. */
export function buildPhase(input: PhaseInput, variations: ExperimentVariation[], trackingKey: string, field: string): ExperimentPhase {
  const dateStarted = new Date(input.dateStarted).toISOString();
  const dateEnded = input.dateEnded ? new Date(input.dateEnded).toISOString() : '';
  if (dateEnded && dateEnded < dateStarted) throw invalid(`${field}.dateEnded`, 'must not be before dateStarted');
  const range = input.namespace?.range;
  if (range && !(range[0] >= 0 && range[0] < range[1] && range[1] <= 1)) {
    throw invalid(`${field}.namespace.range`, 'must be [start, end] with 0 <= start < end <= 1');
  }
  return {
    name: input.name,
    dateStarted,
    dateEnded,
    reasonForStopping: input.reasonForStopping ?? input.reason ?? '',
    seed: input.seed || trackingKey,
    coverage: input.coverage ?? 1,
    trafficSplit: input.variationWeights ? weightedSplit(input.variationWeights, variations, field) : equalSplit(variations),
    ...(input.namespace ? { namespace: { ...input.namespace, range: range ?? [0, 1] } } : {}),
    targetingCondition: input.condition ?? '{}',
    prerequisites: input.prerequisites ?? [],
    savedGroupTargeting: input.savedGroupTargeting ?? [],
  };
}

function weightedSplit(weights: number[], variations: ExperimentVariation[], field: string) {
  if (weights.length !== variations.length) {
    throw invalid(`${field}.variationWeights`, `needs one weight per variation (${variations.length})`);
  }
  const sum = weights.reduce((total, weight) => total + weight, 0);
  if (Math.abs(sum - 1) > WEIGHT_TOLERANCE) throw invalid(`${field}.variationWeights`, `must add up to 1, not ${sum}`);
  return variations.map((v, i) => ({ variationId: v.variationId, weight: weights[i] }));
}

/**
 * A phase's traffic split after the variations changed: weights stay with the variation at the
 * same position; when the number of variations changed, the split becomes equal.
 */
export function resplit(phase: ExperimentPhase, variations: ExperimentVariation[]): ExperimentPhase {
  const trafficSplit =
    phase.trafficSplit.length === variations.length
      ? variations.map((v, i) => ({ variationId: v.variationId, weight: phase.trafficSplit[i].weight }))
      : equalSplit(variations);
  return { ...phase, trafficSplit };
}

/** The first phase an experiment gets when the request gives none. */
const mainPhase = (now: string): PhaseInput => ({ name: 'Main', dateStarted: now });

type SettingsInput = Pick<
  UpdateExperimentBody,
  | 'datasourceId'
  | 'assignmentQueryId'
  | 'segmentId'
  | 'queryFilter'
  | 'inProgressConversions'
  | 'attributionModel'
  | 'lookbackOverride'
  | 'statsEngine'
  | 'regressionAdjustmentEnabled'
  | 'sequentialTestingEnabled'
  | 'sequentialTestingTuningParameter'
  | 'postStratificationEnabled'
  | 'decisionFrameworkSettings'
  | 'metricOverrides'
  | 'metrics'
  | 'secondaryMetrics'
  | 'guardrailMetrics'
  | 'activationMetric'
>;

const emptySettings: Settings = {
  datasourceId: '',
  assignmentQueryId: '',
  experimentId: '',
  segmentId: '',
  queryFilter: '',
  inProgressConversions: 'include',
  attributionModel: 'firstExposure',
  statsEngine: 'bayesian',
  regressionAdjustmentEnabled: false,
  sequentialTestingEnabled: false,
  sequentialTestingTuningParameter: DEFAULT_SEQUENTIAL_TUNING,
  goals: [],
  secondaryMetrics: [],
  guardrails: [],
};

/** A metric with the overrides `metricOverrides` sets for it, as the API shows it. */
function experimentMetric(metricId: string, overrides: MetricOverride[] = []) {
  const o = overrides.find((entry) => entry.id === metricId);
  const set = Object.fromEntries(
    Object.entries({
      delayHours: o?.delayHours,
      windowHours: o?.windowHours,
      window: o?.windowType,
      properPriorOverride: o?.properPriorOverride,
      properPriorEnabled: o?.properPriorEnabled,
      properPriorMean: o?.properPriorMean,
      properPriorStdDev: o?.properPriorStdDev,
      regressionAdjustmentOverride: o?.regressionAdjustmentOverride,
      regressionAdjustmentEnabled: o?.regressionAdjustmentEnabled,
      regressionAdjustmentDays: o?.regressionAdjustmentDays,
    }).filter(([, value]) => value !== undefined),
  );
  return { metricId, overrides: set };
}

/** The analysis settings: the current ones with the request's changes applied. */
export function buildSettings(current: Settings, input: SettingsInput, trackingKey: string): Settings {
  const ids = (list: { metricId: string }[]) => list.map((m) => m.metricId);
  const metricOverrides = input.metricOverrides ?? current.metricOverrides;
  const withOverrides = (list: string[]) => list.map((id) => experimentMetric(id, metricOverrides));
  const activationMetric = input.activationMetric ?? current.activationMetric?.metricId ?? '';
  const { activationMetric: _previous, ...rest } = current;
  const settings: Settings = {
    ...rest,
    datasourceId: input.datasourceId ?? current.datasourceId,
    assignmentQueryId: input.assignmentQueryId ?? current.assignmentQueryId,
    experimentId: trackingKey,
    segmentId: input.segmentId ?? current.segmentId,
    queryFilter: input.queryFilter ?? current.queryFilter,
    inProgressConversions: input.inProgressConversions
      ? input.inProgressConversions === 'strict' ? 'exclude' : 'include'
      : current.inProgressConversions,
    attributionModel: input.attributionModel ?? current.attributionModel,
    statsEngine: input.statsEngine ?? current.statsEngine,
    ...definedOnly({
      lookbackOverride: input.lookbackOverride,
      regressionAdjustmentEnabled: input.regressionAdjustmentEnabled,
      sequentialTestingEnabled: input.sequentialTestingEnabled,
      sequentialTestingTuningParameter: input.sequentialTestingTuningParameter,
      postStratificationEnabled: input.postStratificationEnabled,
      decisionFrameworkSettings: input.decisionFrameworkSettings,
      metricOverrides,
    }),
    goals: withOverrides(input.metrics ?? ids(current.goals)),
    secondaryMetrics: withOverrides(input.secondaryMetrics ?? ids(current.secondaryMetrics)),
    guardrails: withOverrides(input.guardrailMetrics ?? ids(current.guardrails)),
    ...(activationMetric ? { activationMetric: experimentMetric(activationMetric, metricOverrides) } : {}),
  };
  // Attribution by lookback needs the lookback, and a lookback means nothing without it.
  if (settings.attributionModel === 'lookbackOverride' && !settings.lookbackOverride) {
    throw invalid('lookbackOverride', "is required when attributionModel is 'lookbackOverride'");
  }
  if (settings.attributionModel !== 'lookbackOverride') {
    if (input.lookbackOverride) throw invalid('lookbackOverride', "is only allowed when attributionModel is 'lookbackOverride'");
    delete settings.lookbackOverride;
  }
  assertLookback(settings.lookbackOverride);
  const hasMetrics = settings.goals.length + settings.secondaryMetrics.length + settings.guardrails.length > 0 || !!settings.activationMetric;
  // Metrics are computed from a datasource; without one they could never have results.
  if (hasMetrics && !settings.datasourceId) throw invalid('datasourceId', 'is required when the experiment has metrics');
  return settings;
}

function assertLookback(lookback: Settings['lookbackOverride']): void {
  if (!lookback) return;
  if (lookback.type === 'window') {
    if (typeof lookback.value !== 'number' || lookback.value < 0) {
      throw invalid('lookbackOverride.value', 'must be a number >= 0 for a window');
    }
    if (!lookback.valueUnit) throw invalid('lookbackOverride.valueUnit', 'is required for a window');
  } else if (typeof lookback.value !== 'string') {
    throw invalid('lookbackOverride.value', 'must be a date-time string for a date');
  }
}

const definedOnly = <T extends Record<string, unknown>>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;

const banditKeys = [
  'banditScheduleValue',
  'banditScheduleUnit',
  'banditBurnInValue',
  'banditBurnInUnit',
  'banditConversionWindowValue',
  'banditConversionWindowUnit',
] as const;

/** The experiment without the fields an update derives afresh: bandit schedule, results, scheduled start. */
function withoutDerived(experiment: Experiment) {
  const copy: Partial<Experiment> = { ...experiment };
  for (const key of [...banditKeys, 'resultSummary', 'statusUpdateSchedule', 'nextScheduledStatusUpdate'] as const) delete copy[key];
  return copy as Omit<Experiment, (typeof banditKeys)[number] | 'resultSummary' | 'statusUpdateSchedule' | 'nextScheduledStatusUpdate'>;
}

type BanditInput = Pick<UpdateExperimentBody, (typeof banditKeys)[number]>;

/** The bandit schedule of a multi-armed bandit (GrowthBook's defaults: one day each); none for other types. */
function banditFields(type: Experiment['type'], current: Partial<Experiment>, input: BanditInput) {
  if (type !== 'multi-armed-bandit') return {};
  return {
    banditScheduleValue: input.banditScheduleValue ?? current.banditScheduleValue ?? 1,
    banditScheduleUnit: input.banditScheduleUnit ?? current.banditScheduleUnit ?? 'days',
    banditBurnInValue: input.banditBurnInValue ?? current.banditBurnInValue ?? 1,
    banditBurnInUnit: input.banditBurnInUnit ?? current.banditBurnInUnit ?? 'days',
    ...definedOnly({
      banditConversionWindowValue: input.banditConversionWindowValue ?? current.banditConversionWindowValue,
      banditConversionWindowUnit: input.banditConversionWindowUnit ?? current.banditConversionWindowUnit,
    }),
  };
}

type ResultInput = Pick<UpdateExperimentBody, 'results' | 'winner' | 'analysis' | 'releasedVariationId' | 'excludeFromPayload'>;

/** The result summary, once any of its fields has been set; `winner` is given as a variation index. */
function buildResultSummary(current: Experiment['resultSummary'], input: ResultInput, variations: ExperimentVariation[]) {
  const given = [input.results, input.winner, input.analysis, input.releasedVariationId, input.excludeFromPayload];
  if (!current && given.every((value) => value === undefined)) return undefined;
  if (input.winner !== undefined && input.winner >= variations.length) {
    throw invalid('winner', `must be the index of a variation (0 to ${variations.length - 1})`);
  }
  const releasedVariationId = input.releasedVariationId ?? current?.releasedVariationId ?? '';
  if (releasedVariationId && !variations.some((v) => v.variationId === releasedVariationId)) {
    throw invalid('releasedVariationId', `no variation of this experiment has the id ${releasedVariationId}`);
  }
  const winner = input.winner !== undefined ? variations[input.winner].variationId : (current?.winner ?? '');
  if (winner && !variations.some((v) => v.variationId === winner)) {
    throw invalid('winner', 'the winning variation is no longer part of the experiment; give winner again');
  }
  return {
    status: input.results ?? current?.status ?? '',
    winner,
    conclusions: input.analysis ?? current?.conclusions ?? '',
    releasedVariationId,
    excludeFromPayload: input.excludeFromPayload ?? current?.excludeFromPayload ?? false,
  };
}

/** A scheduled start is only for drafts, and only in the future. */
function assertSchedule(schedule: Experiment['statusUpdateSchedule'], status: string, now: string): void {
  if (!schedule) return;
  if (status !== 'draft') throw invalid('statusUpdateSchedule', 'a start can only be scheduled for a draft experiment');
  if (new Date(schedule.startAt).toISOString() <= now) throw invalid('statusUpdateSchedule.startAt', 'must be in the future');
}

/** A new experiment from a create body (template defaults already applied), with GrowthBook's defaults. */
export function newExperiment(
  body: PostExperimentBody,
  owner: OwnerFields,
  now: string,
): Omit<Experiment, 'dateCreated' | 'dateUpdated'> {
  const type = body.type ?? 'standard';
  const status = body.status ?? 'draft';
  const variations = buildVariations(body.variations);
  const phases = (body.phases ?? [mainPhase(now)]).map((p, i) => buildPhase(p, variations, body.trackingKey, `phases.${i}`));
  assertSchedule(body.statusUpdateSchedule, status, now);
  const resultSummary = buildResultSummary(undefined, body, variations);
  return {
    id: newId('exp_'),
    trackingKey: body.trackingKey,
    name: body.name,
    type,
    project: body.project ?? '',
    hypothesis: body.hypothesis ?? '',
    description: body.description ?? '',
    tags: body.tags ?? [],
    ...owner,
    archived: body.archived ?? false,
    status,
    autoRefresh: body.autoRefresh ?? true,
    hashAttribute: body.hashAttribute ?? 'id',
    fallbackAttribute: body.fallbackAttribute ?? '',
    hashVersion: body.hashVersion ?? 2,
    disableStickyBucketing: body.disableStickyBucketing ?? false,
    ...definedOnly({ bucketVersion: body.bucketVersion, minBucketVersion: body.minBucketVersion }),
    variations,
    phases,
    settings: buildSettings(emptySettings, body, body.trackingKey),
    ...(resultSummary ? { resultSummary } : {}),
    shareLevel: body.shareLevel ?? 'organization',
    ...banditFields(type, {}, body),
    linkedFeatures: [],
    hasVisualChangesets: false,
    hasURLRedirects: false,
    customFields: body.customFields ?? {},
    customMetricSlices: body.customMetricSlices ?? [],
    ...definedOnly({
      defaultDashboardId: body.defaultDashboardId,
      templateId: body.templateId,
      statusUpdateSchedule: body.statusUpdateSchedule,
    }),
  };
}

/** The experiment after a partial update: absent fields unchanged, lists replaced whole. */
export function updatedExperiment(current: Experiment, body: UpdateExperimentBody, owner: OwnerFields | undefined, now: string): Experiment {
  if (body.datasourceId !== undefined && current.settings.datasourceId && body.datasourceId !== current.settings.datasourceId) {
    throw invalid('datasourceId', 'can only be set while the experiment has no datasource');
  }
  const trackingKey = body.trackingKey ?? current.trackingKey;
  const type = body.type ?? current.type;
  const status = body.status ?? current.status;
  const variations = body.variations ? buildVariations(body.variations, current.variations) : current.variations;
  const phases = body.phases
    ? body.phases.map((p, i) => buildPhase(p, variations, trackingKey, `phases.${i}`))
    : body.variations
      ? current.phases.map((p) => resplit(p, variations))
      : current.phases;
  const statusUpdateSchedule = body.statusUpdateSchedule === undefined ? current.statusUpdateSchedule : body.statusUpdateSchedule;
  // Setting or clearing the schedule invalidates a staged start, as GrowthBook documents: POST /start stages it again.
  const staging = body.statusUpdateSchedule === undefined ? current.nextScheduledStatusUpdate : undefined;
  if (body.statusUpdateSchedule !== undefined || body.status !== undefined) assertSchedule(statusUpdateSchedule, status, now);
  const resultSummary = buildResultSummary(current.resultSummary, body, variations);
  return withOwner({
    ...withoutDerived(current),
    ...definedOnly({
      name: body.name,
      project: body.project,
      hypothesis: body.hypothesis,
      description: body.description,
      tags: body.tags,
      archived: body.archived,
      autoRefresh: body.autoRefresh,
      hashAttribute: body.hashAttribute,
      fallbackAttribute: body.fallbackAttribute,
      hashVersion: body.hashVersion,
      disableStickyBucketing: body.disableStickyBucketing,
      bucketVersion: body.bucketVersion,
      minBucketVersion: body.minBucketVersion,
      shareLevel: body.shareLevel,
      customFields: body.customFields,
      customMetricSlices: body.customMetricSlices,
      defaultDashboardId: body.defaultDashboardId,
    }),
    trackingKey,
    type,
    status,
    variations,
    phases,
    settings: buildSettings(current.settings, body, trackingKey),
    ...(resultSummary ? { resultSummary } : {}),
    ...banditFields(type, current, body),
    ...(statusUpdateSchedule ? { statusUpdateSchedule } : {}),
    ...(staging ? { nextScheduledStatusUpdate: staging } : {}),
  }, owner);
}

/** The summary status GET shows: archived first, then a scheduled draft, then the status itself. */
export function enhancedStatus(experiment: Experiment): { status: 'Running' | 'Stopped' | 'Draft' | 'Scheduled' | 'Archived' } {
  if (experiment.archived) return { status: 'Archived' };
  if (experiment.status === 'running') return { status: 'Running' };
  if (experiment.status === 'stopped') return { status: 'Stopped' };
  return { status: experiment.statusUpdateSchedule ? 'Scheduled' : 'Draft' };
}

/**
 * What a template fills in for a new experiment; the request's own fields win over these.
 * The template's targeting becomes the first phase, starting now.
 */
export function templateDefaults(template: ExperimentTemplate, now: string): Partial<PostExperimentBody> {
  return definedOnly({
    project: template.project,
    type: template.type,
    hypothesis: template.hypothesis,
    description: template.description,
    tags: template.tags,
    customFields: template.customFields,
    datasourceId: template.datasource || undefined,
    assignmentQueryId: template.exposureQueryId || undefined,
    hashAttribute: template.hashAttribute,
    fallbackAttribute: template.fallbackAttribute,
    disableStickyBucketing: template.disableStickyBucketing,
    metrics: template.goalMetrics,
    secondaryMetrics: template.secondaryMetrics,
    guardrailMetrics: template.guardrailMetrics,
    activationMetric: template.activationMetric,
    statsEngine: template.statsEngine,
    segmentId: template.segment,
    inProgressConversions: template.skipPartialData === undefined ? undefined : template.skipPartialData ? 'strict' : 'loose',
    customMetricSlices: template.customMetricSlices,
    phases: [
      {
        name: 'Main',
        dateStarted: now,
        coverage: template.targeting.coverage,
        condition: template.targeting.condition,
        prerequisites: template.targeting.prerequisites,
        savedGroupTargeting: template.targeting.savedGroups?.map((group) => ({ matchType: group.match, savedGroups: group.ids })),
      },
    ],
  });
}

/** Every metric id an experiment body names, with the field that names it. */
export function metricReferences(body: Pick<UpdateExperimentBody, 'metrics' | 'secondaryMetrics' | 'guardrailMetrics' | 'activationMetric' | 'metricOverrides'>): { field: string; id: string }[] {
  return [
    ...(body.metrics ?? []).map((id, i) => ({ field: `metrics.${i}`, id })),
    ...(body.secondaryMetrics ?? []).map((id, i) => ({ field: `secondaryMetrics.${i}`, id })),
    ...(body.guardrailMetrics ?? []).map((id, i) => ({ field: `guardrailMetrics.${i}`, id })),
    ...(body.activationMetric ? [{ field: 'activationMetric', id: body.activationMetric }] : []),
    ...(body.metricOverrides ?? []).map((o, i) => ({ field: `metricOverrides.${i}.id`, id: o.id })),
  ];
}

/** Every saved group and prerequisite feature the phases of a body name, with their fields. */
export function phaseReferences(phases: PhaseInput[] = []) {
  return {
    savedGroups: phases.flatMap((p, i) =>
      (p.savedGroupTargeting ?? []).flatMap((t, j) =>
        t.savedGroups.map((id, k) => ({ field: `phases.${i}.savedGroupTargeting.${j}.savedGroups.${k}`, id })),
      ),
    ),
    features: phases.flatMap((p, i) => (p.prerequisites ?? []).map((pre, j) => ({ field: `phases.${i}.prerequisites.${j}.id`, id: pre.id }))),
  };
}
