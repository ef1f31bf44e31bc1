import * as contract from '../contracts/reports';
import { toExperimentResults } from '../analysis/experiment-results';
import type { Experiment } from '../contracts/experiments';
import type { StoredReport } from '../contracts/reports';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { withOwner } from '../domain/owner';
import { assertShareLevel, experimentAsReported, newReport, reportMetricReferences, settingsAfter } from '../domain/reports';
import { assertAnalysable } from '../domain/snapshots';
import { InvalidInputError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { assertCan, canRead, type Principal } from '../permissions';
import { assertMetrics, experiments } from '../store/experiments';
import { ownerForCreate } from '../store/members';
import { reports } from '../store/reports';
import { readSnapshotResults } from '../store/snapshot-results';
import { snapshots } from '../store/snapshots';
import { projectOf, readableByExperiment, readableOr404 } from './read-access';
import { startSnapshot } from './snapshots';

/** The report as the API shows it: its snapshot's state, and its results once that snapshot succeeded. */
async function present(orgId: string, report: StoredReport, experiment: Experiment): Promise<contract.Report> {
  const { editLevel: _edit, ...shown } = report;
  const snapshot = report.snapshotId ? await snapshots.find(orgId, report.snapshotId) : undefined;
  const stored = snapshot?.status === 'success' ? await readSnapshotResults(orgId, snapshot.id) : undefined;
  const split = new Map((experiment.phases.at(-1)?.trafficSplit ?? []).map((s) => [s.variationId, s.weight]));
  return {
    ...shown,
    ...(snapshot ? { snapshotStatus: snapshot.status, ...(snapshot.error ? { snapshotError: snapshot.error } : {}) } : {}),
    experimentMetadata: {
      type: experiment.type,
      variations: experiment.variations.map((v) => ({ id: v.variationId, name: v.name, key: v.key, weight: split.get(v.variationId) ?? 1 / experiment.variations.length })),
      phases: experiment.phases.map((p) => ({ name: p.name, dateStarted: p.dateStarted, ...(p.dateEnded ? { dateEnded: p.dateEnded } : {}), coverage: p.coverage })),
    },
    ...(stored ? { results: toExperimentResults(stored.summary, stored.metrics) } : {}),
  };
}

/** The report and its experiment, or 404 when either is gone or the caller may not read the experiment. */
async function readReport(auth: Principal, id: string): Promise<{ report: StoredReport; experiment: Experiment }> {
  const report = await reports.get(auth.orgId, id);
  const experiment = await experiments.find(auth.orgId, report.experimentId);
  // A report outlives nothing: without its experiment it is gone too.
  if (!experiment) throw new NotFoundError(`Report ${id} not found`);
  readableOr404(auth, report, projectOf(experiment), 'Report', id);
  return { report, experiment };
}

/** Runs the report's analysis: a snapshot of the experiment as the report sets it up (400 when it cannot be analysed so). */
async function run(auth: Principal, report: Pick<StoredReport, 'id' | 'analysisSettings'>, experiment: Experiment) {
  const reported = experimentAsReported(experiment, report.analysisSettings);
  assertAnalysable(reported, undefined);
  return startSnapshot(auth, reported, { triggeredBy: 'manual', ...(report.analysisSettings.dimension ? { dimension: report.analysisSettings.dimension } : {}) }, report.id);
}

/** `GET /reports`: list reports, of one experiment or all. */
export async function listReports({ query, auth }: UseCaseInput<typeof contract.listReports>): UseCaseOutput<typeof contract.listReports> {
  const all = await reports.allTagged(auth.orgId, query.experimentId ? [`experiment:${query.experimentId}`] : []);
  const readable = await readableByExperiment(auth, all, (r) => r.experimentId);
  const page = readable.slice(query.offset, query.offset + query.limit);
  const byId = new Map((await experiments.getMany(auth.orgId, [...new Set(page.map((r) => r.experimentId))])).map((e) => [e.id, e]));
  const items = await Promise.all(page.filter((r) => byId.has(r.experimentId)).map((r) => present(auth.orgId, r, byId.get(r.experimentId)!)));
  const hasMore = query.offset + query.limit < readable.length;
  return { reports: items, limit: query.limit, offset: query.offset, count: items.length, total: readable.length, hasMore, nextOffset: hasMore ? query.offset + query.limit : null };
}

/** `POST /reports`: create a report on an experiment and run its analysis. */
export async function postReport({ body, auth }: UseCaseInput<typeof contract.postReport>): UseCaseOutput<typeof contract.postReport> {
  const { experimentId, owner: givenOwner, ...fields } = body;
  const experiment = await experiments.find(auth.orgId, experimentId);
  if (!experiment) throw new InvalidInputError(`Request body: [experimentId] no experiment has the id ${experimentId}`);
  if (!canRead(auth, projectOf(experiment))) throw new InvalidInputError(`Request body: [experimentId] no experiment has the id ${experimentId}`);
  assertCan(auth, contract.postReport.permission, projectOf(experiment));
  const draft = newReport(newId('rep_'), experiment, fields, { owner: '' });
  await assertMetrics(auth.orgId, reportMetricReferences(draft.analysisSettings), experiment.settings.datasourceId);
  const owner = await ownerForCreate(auth.orgId, givenOwner, auth.memberId);
  const snapshot = await run(auth, draft, experiment);
  const report = await reports.create(auth.orgId, withOwner({ ...draft, snapshotId: snapshot.id }, owner));
  return { report: await present(auth.orgId, report, experiment) };
}

/** `GET /reports/{id}`: a report with its latest results. */
export async function getReport({ params, auth }: UseCaseInput<typeof contract.getReport>): UseCaseOutput<typeof contract.getReport> {
  const { report, experiment } = await readReport(auth, params.id);
  return { report: await present(auth.orgId, report, experiment) };
}

/** `PUT /reports/{id}/metadata`: change a report's title, description, status or visibility. */
export async function putReportMetadata({ params, body, auth }: UseCaseInput<typeof contract.putReportMetadata>): UseCaseOutput<typeof contract.putReportMetadata> {
  const { experiment } = await readReport(auth, params.id);
  assertCan(auth, contract.putReportMetadata.permission, projectOf(experiment));
  assertShareLevel(body.shareLevel);
  const given = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  const report = await reports.update(auth.orgId, params.id, (current) => ({ ...current, ...given }));
  return { report: await present(auth.orgId, report, experiment) };
}

/** `PUT /reports/{id}/settings`: stage a report's analysis settings for its next refresh. */
export async function putReportSettings({ params, body, auth }: UseCaseInput<typeof contract.putReportSettings>): UseCaseOutput<typeof contract.putReportSettings> {
  const { experiment } = await readReport(auth, params.id);
  assertCan(auth, contract.putReportSettings.permission, projectOf(experiment));
  const report = await reports.update(auth.orgId, params.id, async (current) => {
    const analysisSettings = settingsAfter(current.analysisSettings, body);
    await assertMetrics(auth.orgId, reportMetricReferences(analysisSettings), experiment.settings.datasourceId);
    return { ...current, analysisSettings };
  });
  return { report: await present(auth.orgId, report, experiment) };
}

/** `POST /reports/{id}/refresh`: run the report's analysis again with its current settings. */
export async function postReportRefresh({ params, auth }: UseCaseInput<typeof contract.postReportRefresh>): UseCaseOutput<typeof contract.postReportRefresh> {
  const { report: current, experiment } = await readReport(auth, params.id);
  assertCan(auth, contract.postReportRefresh.permission, projectOf(experiment));
  const snapshot = await run(auth, current, experiment);
  const report = await reports.update(auth.orgId, params.id, (latest) => ({ ...latest, snapshotId: snapshot.id }));
  return { report: await present(auth.orgId, report, experiment) };
}
