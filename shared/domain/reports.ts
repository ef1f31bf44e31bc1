import type { Experiment } from '../contracts/experiments';
import type { ReportAnalysisSettings, ReportSettingsBody, StoredReport } from '../contracts/reports';
import { InvalidInputError } from '../errors';

const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** Refuses what Switchyard cannot serve: public share links (there is no public report page). */
export function assertShareLevel(shareLevel: string | undefined): void {
  if (shareLevel === 'public') throw invalid('shareLevel', 'public reports are not served: use organization or private');
}

/** The experiment's own analysis settings, as a new report starts from them (its latest phase's dates). */
export function experimentAnalysisSettings(experiment: Experiment): ReportAnalysisSettings {
  const s = experiment.settings;
  const phase = experiment.phases.at(-1);
  return {
    statsEngine: s.statsEngine,
    goalMetrics: s.goals.map((m) => m.metricId),
    secondaryMetrics: s.secondaryMetrics.map((m) => m.metricId),
    guardrailMetrics: s.guardrails.map((m) => m.metricId),
    ...(s.activationMetric ? { activationMetric: s.activationMetric.metricId } : {}),
    metricOverrides: s.metricOverrides ?? [],
    dimension: '',
    differenceType: 'relative',
    dateStarted: phase?.dateStarted ? new Date(phase.dateStarted).toISOString() : experiment.dateCreated,
    ...(phase?.dateEnded ? { dateEnded: new Date(phase.dateEnded).toISOString() } : {}),
    regressionAdjustmentEnabled: !!s.regressionAdjustmentEnabled,
    sequentialTestingEnabled: !!s.sequentialTestingEnabled,
    sequentialTestingTuningParameter: s.sequentialTestingTuningParameter ?? 5000,
    attributionModel: s.attributionModel,
    ...(s.lookbackOverride ? { lookbackOverride: s.lookbackOverride } : {}),
    trackingKey: experiment.trackingKey,
    exposureQueryId: s.assignmentQueryId,
    ...(s.segmentId ? { segment: s.segmentId } : {}),
    queryFilter: s.queryFilter,
    skipPartialData: s.inProgressConversions === 'exclude',
  };
}

/** The settings after a request's changes; dates must still run forwards. */
export function settingsAfter(current: ReportAnalysisSettings, change: ReportSettingsBody): ReportAnalysisSettings {
  const given = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) as Partial<ReportAnalysisSettings>;
  const next = { ...current, ...given, ...(change.dateStarted ? { dateStarted: new Date(change.dateStarted).toISOString() } : {}), ...(change.dateEnded ? { dateEnded: new Date(change.dateEnded).toISOString() } : {}) };
  if (next.dateEnded && next.dateEnded <= next.dateStarted) throw invalid('dateEnded', `must be after dateStarted (${next.dateStarted})`);
  if (next.attributionModel === 'lookbackOverride' && !next.lookbackOverride) throw invalid('lookbackOverride', "is required when attributionModel is 'lookbackOverride'");
  return next;
}

/** The metric references of report settings, named by the field that gives them (for the existence check). */
export function reportMetricReferences(settings: Pick<ReportAnalysisSettings, 'goalMetrics' | 'secondaryMetrics' | 'guardrailMetrics' | 'activationMetric'>) {
  return [
    ...settings.goalMetrics.map((id, i) => ({ field: `goalMetrics.${i}`, id })),
    ...settings.secondaryMetrics.map((id, i) => ({ field: `secondaryMetrics.${i}`, id })),
    ...settings.guardrailMetrics.map((id, i) => ({ field: `guardrailMetrics.${i}`, id })),
    ...(settings.activationMetric ? [{ field: 'activationMetric', id: settings.activationMetric }] : []),
  ];
}

/**
 * The experiment as the report analyses it: its settings, metrics and tracking key replaced by the
 * report's, and its latest phase running over the report's dates. The snapshot is frozen from this.
 */
export function experimentAsReported(experiment: Experiment, s: ReportAnalysisSettings): Experiment {
  const metric = (metricId: string) => ({ metricId, overrides: {} });
  const last = experiment.phases.length - 1;
  const overrides = s.metricOverrides.map(({ winRisk: _win, loseRisk: _lose, ...override }) => override);
  return {
    ...experiment,
    trackingKey: s.trackingKey,
    settings: {
      ...experiment.settings,
      assignmentQueryId: s.exposureQueryId,
      segmentId: s.segment ?? '',
      queryFilter: s.queryFilter,
      inProgressConversions: s.skipPartialData ? 'exclude' : 'include',
      attributionModel: s.attributionModel,
      lookbackOverride: s.lookbackOverride,
      statsEngine: s.statsEngine,
      regressionAdjustmentEnabled: s.regressionAdjustmentEnabled,
      sequentialTestingEnabled: s.sequentialTestingEnabled,
      sequentialTestingTuningParameter: s.sequentialTestingTuningParameter,
      // Left out when empty and the experiment has none, so the same analysis shows the same settings.
      metricOverrides: overrides.length || experiment.settings.metricOverrides ? overrides : undefined,
      goals: s.goalMetrics.map(metric),
      secondaryMetrics: s.secondaryMetrics.map(metric),
      guardrails: s.guardrailMetrics.map(metric),
      activationMetric: s.activationMetric ? metric(s.activationMetric) : undefined,
    },
    phases: experiment.phases.map((phase, i) => (i === last ? { ...phase, dateStarted: s.dateStarted, dateEnded: s.dateEnded ?? '' } : phase)),
  };
}

/** A new report on `experiment`, its settings the experiment's with the request's changes. */
export function newReport(
  id: string,
  experiment: Experiment,
  body: ReportSettingsBody & { title?: string; description?: string; shareLevel?: 'public' | 'organization' | 'private' },
  owner: { owner: string; ownerEmail?: string },
): Omit<StoredReport, 'dateCreated' | 'dateUpdated'> {
  assertShareLevel(body.shareLevel);
  const { title, description, shareLevel, ...settings } = body;
  return {
    id,
    title: title ?? `${experiment.name} report`,
    description: description ?? '',
    type: 'experiment-snapshot',
    status: 'private',
    shareLevel: (shareLevel as 'organization' | 'private' | undefined) ?? 'private',
    editLevel: 'private',
    experimentId: experiment.id,
    ...owner,
    analysisSettings: settingsAfter(experimentAnalysisSettings(experiment), settings),
  };
}
