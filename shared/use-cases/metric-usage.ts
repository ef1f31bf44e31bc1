import * as contract from '../contracts/metric-usage';
import type { Experiment } from '../contracts/experiments';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { InvalidInputError, NotFoundError } from '../errors';
import type { Principal } from '../permissions';
import { experiments } from '../store/experiments';
import { factMetrics } from '../store/fact-metrics';
import { metrics } from '../store/metrics';
import { readLatestPointers, readSnapshotResults } from '../store/snapshot-results';
import { snapshots } from '../store/snapshots';
import { readableBy, readableOr404, visibleTo } from './read-access';

/** The metric ids an experiment names anywhere: goals, secondary metrics, guardrails and its activation metric. */
const metricsOf = (experiment: Experiment): Set<string> => {
  const { goals, secondaryMetrics, guardrails, activationMetric } = experiment.settings;
  return new Set([...goals, ...secondaryMetrics, ...guardrails, ...(activationMetric ? [activationMetric] : [])].map((m) => m.metricId));
};

/** The readable metrics (fact or legacy) among `ids`, by id, with their projects. */
async function readableMetrics(auth: Principal, ids: string[]): Promise<Set<string>> {
  const [facts, legacy] = await Promise.all([factMetrics.getMany(auth.orgId, ids), metrics.getMany(auth.orgId, ids)]);
  return new Set(readableBy(auth, [...facts, ...legacy], (m) => m.projects ?? []).map((m) => m.id));
}

/** Every experiment the caller may read that names `metricId`, newest first (one Query of the organization's experiments). */
async function experimentsUsing(auth: Principal, metricIds: Set<string>): Promise<Experiment[]> {
  const all = await experiments.allTagged(auth.orgId, [], visibleTo(auth));
  return all.filter((e) => [...metricsOf(e)].some((id) => metricIds.has(id))).reverse();
}

const list = (value: string | undefined) => (value ? value.split(',').map((v) => v.trim()).filter(Boolean) : []);
function allowed(field: string, values: string[], known: readonly string[]): string[] {
  const unknown = values.filter((v) => !known.includes(v));
  if (unknown.length) throw new InvalidInputError(`Querystring: [${field}] ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not one of ${known.join(', ')}`);
  return values;
}

/** The date GrowthBook shows for an experiment: when its latest phase ended, else started, else when it was created. */
const dateOf = (e: Experiment) => {
  const last = e.phases.at(-1);
  return new Date(last?.dateEnded || last?.dateStarted || e.dateCreated).toISOString();
};

type Query = UseCaseInput<typeof contract.listMetricExperiments>['query'];

/** The filter the list views apply, from the query string (400 for a value GrowthBook does not know). */
function experimentFilter(query: Query): (e: Experiment) => boolean {
  if (query.q && /(^|\s)[-!]|:/.test(query.q)) {
    throw new InvalidInputError('Querystring: [q] search operators (field:value, negation) are not supported; give plain words');
  }
  const words = (query.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const projects = list(query.projectId);
  const owners = list(query.owner);
  const statuses = allowed('status', list(query.status), ['draft', 'running', 'stopped']);
  const results = allowed('result', list(query.result), ['won', 'lost', 'inconclusive', 'dnf']);
  const tags = list(query.tag);
  const types = allowed('type', list(query.type), ['feature', 'visualChange', 'redirect']);
  const from = query.startDate ? new Date(query.startDate).toISOString() : undefined;
  const to = query.endDate ? new Date(query.endDate).toISOString() : undefined;
  return (e) =>
    words.every((w) => `${e.name} ${e.id} ${e.trackingKey}`.toLowerCase().includes(w)) &&
    (!projects.length || projects.includes(e.project)) &&
    (!owners.length || owners.includes(e.owner) || (!!e.ownerEmail && owners.includes(e.ownerEmail))) &&
    (!statuses.length || statuses.includes(e.status)) &&
    (!results.length || results.includes(e.resultSummary?.status ?? '')) &&
    (!tags.length || e.tags.some((t) => tags.includes(t))) &&
    (!types.length ||
      (types.includes('feature') && !!e.linkedFeatures?.length) ||
      (types.includes('visualChange') && !!e.hasVisualChangesets) ||
      (types.includes('redirect') && !!e.hasURLRedirects)) &&
    (query.bandits === undefined || (e.type === 'multi-armed-bandit') === (query.bandits === 'true')) &&
    (!from || dateOf(e) >= from) &&
    (!to || dateOf(e) <= to);
}

/** One variation's results for the metric from the experiment's latest overall snapshot of its latest phase, when there is one. */
async function metricResults(orgId: string, experiment: Experiment, metricId: string) {
  const pointer = (await readLatestPointers(orgId, experiment.id, '')).get(Math.max(0, experiment.phases.length - 1));
  const stored = pointer ? await readSnapshotResults(orgId, pointer.snapshotId) : undefined;
  const overall = stored?.metrics.find((m) => m.metricId === metricId)?.dimensions[0]?.variations ?? [];
  return experiment.variations.map((variation, i) => {
    const found = overall.find((v) => v.variationId === variation.variationId);
    const analysis = found?.analyses[0] as { numerator: number; mean: number; percentChange: number; ciLow: number; ciHigh: number; pValue?: number; chanceToBeatControl?: number } | undefined;
    // The baseline has no lift of its own.
    const effect = analysis && i > 0
      ? {
          lift: analysis.percentChange,
          ci: [analysis.ciLow, analysis.ciHigh] as [number, number],
          ...(analysis.pValue !== undefined ? { pValue: analysis.pValue } : {}),
          ...(analysis.chanceToBeatControl !== undefined ? { chanceToWin: analysis.chanceToBeatControl } : {}),
        }
      : {};
    return {
      variationId: variation.variationId,
      variationName: variation.name,
      ...(found ? { users: found.users } : {}),
      ...(analysis ? { value: analysis.numerator, mean: analysis.mean } : {}),
      ...effect,
    };
  });
}

/** `GET /metrics/{id}/experiments`: each experiment that analyses a metric, with the metric's latest results there. */
export async function listMetricExperiments({
  params,
  query,
  auth,
}: UseCaseInput<typeof contract.listMetricExperiments>): UseCaseOutput<typeof contract.listMetricExperiments> {
  if (!(await readableMetrics(auth, [params.id])).has(params.id)) throw new NotFoundError(`Metric ${params.id} not found`);
  const matching = (await experimentsUsing(auth, new Set([params.id]))).filter(experimentFilter(query));
  const page = matching.slice(query.offset, query.offset + query.limit);
  const experimentResults = await Promise.all(
    page.map(async (e) => ({
      experimentId: e.id,
      experimentName: e.name,
      status: e.status,
      ...(e.resultSummary?.status ? { result: e.resultSummary.status } : {}),
      date: dateOf(e),
      datasourceId: e.settings.datasourceId,
      variations: await metricResults(auth.orgId, e, params.id),
    })),
  );
  const hasMore = query.offset + query.limit < matching.length;
  return {
    experimentResults,
    limit: query.limit,
    offset: query.offset,
    count: experimentResults.length,
    total: matching.length,
    hasMore,
    nextOffset: hasMore ? query.offset + query.limit : null,
  };
}

/** `GET /usage/metrics`: for each metric, the experiments using it and when each was last analysed. */
export async function getMetricUsage({ query, auth }: UseCaseInput<typeof contract.getMetricUsage>): UseCaseOutput<typeof contract.getMetricUsage> {
  const ids = [...new Set(list(query.ids))];
  if (!ids.length) throw new InvalidInputError('Querystring: [ids] give at least one metric id');
  if (ids.length > 100) throw new InvalidInputError('Querystring: [ids] at most 100 metric ids at once');
  const readable = await readableMetrics(auth, ids);
  const using = await experimentsUsing(auth, readable);
  const lastAttempt = new Map(
    await Promise.all(using.map(async (e) => [e.id, (await snapshots.allTagged(auth.orgId, [`experiment:${e.id}`])).at(-1)?.dateCreated ?? null] as const)),
  );
  return {
    metricUsage: ids.map((metricId) => {
      if (!readable.has(metricId)) return { metricId, error: `Could not find metric ${metricId}, or you may not read it` };
      const experimentsOf = using.filter((e) => metricsOf(e).has(metricId));
      const attempts = experimentsOf.map((e) => lastAttempt.get(e.id) ?? null);
      const latest = attempts.filter((a): a is string => a !== null).sort().at(-1) ?? null;
      return {
        metricId,
        experiments: experimentsOf.map((e, i) => ({ experimentId: e.id, experimentStatus: e.status as 'draft' | 'running' | 'stopped', lastSnapshotAttempt: attempts[i]! })),
        lastSnapshotAttempt: latest,
      };
    }),
  };
}
