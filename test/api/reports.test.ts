import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as contract from '../../shared/contracts/reports';
import { syntheticExperiment, writeSyntheticFiles } from '../support/analysis-data';
import { createDuckDbDataSource, waitForSnapshot } from '../support/analysis-api';
import { createTestOrg, expectShape, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

const START = Date.parse('2024-03-01T00:00:00Z');
const END = Date.parse('2024-03-15T00:00:00Z');
const TRACKING_KEY = 'reports';

let api: Api;
let org: TestOrg;
let other: TestOrg;
let experiment: { id: string; name: string };
let metricId: string;
const dataDir = mkdtempSync(path.join(tmpdir(), 'reports-'));

const post = (route: string, body: unknown, testOrg = org) => requestOk(api, testOrg.keys.admin, 'POST', route, body);
const request = (method: string, route: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${route}`, { key, body });

beforeAll(async () => {
  mkdirSync(path.join(dataDir, 'events'));
  writeSyntheticFiles(dataDir, syntheticExperiment({ seed: 5, units: 3_000, trackingKey: TRACKING_KEY, start: START, end: END }));
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Reports org'), createTestOrg('Other org')]);
  const dataSource = await createDuckDbDataSource(api, org);
  const { factTable } = await post('/fact-tables', { name: 'Events', datasource: dataSource.id, userIdTypes: ['user_id'], sql: "SELECT * FROM read_csv('events/*.csv')" });
  metricId = (await post('/fact-metrics', { name: 'Purchased', metricType: 'proportion', numerator: { factTableId: factTable.id, column: '$$distinctUsers', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] } })).factMetric.id;
  experiment = (await post('/experiments', {
    trackingKey: TRACKING_KEY,
    name: 'Checkout',
    status: 'running',
    datasourceId: dataSource.id,
    assignmentQueryId: 'user_exposures',
    variations: [
      { key: '0', name: 'Control' },
      { key: '1', name: 'Treatment' },
    ],
    phases: [{ name: 'Main', dateStarted: new Date(START).toISOString(), dateEnded: new Date(END).toISOString() }],
    metrics: [metricId],
    statsEngine: 'frequentist',
  })).experiment;
});
afterAll(() => api.close());

const validReport = referenceSchemaValidator('Report', 'growthbook-5.0.1-openapi.yaml');
const expectReferenceReport = (report: unknown) => expect(validReport(report) ? [] : validReport.errors).toEqual([]);
/** Results without what differs between two snapshots of the same analysis. */
const numbersOf = ({ id: _id, dateUpdated: _date, queryIds: _queries, ...rest }: Record<string, unknown>) => rest;
const reportCount = async () => (await requestOk(api, org.keys.admin, 'GET', `/reports?experimentId=${experiment.id}&limit=100`)).total as number;

describe('reports', () => {
  it("run their own snapshot: with the experiment's settings they give its results, and leave its own results alone", async () => {
    const created = await request('POST', '/reports', { experimentId: experiment.id, title: 'Launch review' });
    const beforeOwn = await request('GET', `/experiments/${experiment.id}/results`);
    expect(created.status).toBe(200);
    expect(await waitForSnapshot(api, org, created.body.report.snapshotId)).toBe('success');
    const report = await request('GET', `/reports/${created.body.report.id}`, undefined, org.keys.readonly);
    const own = await post(`/experiments/${experiment.id}/snapshot`, {});
    expect(await waitForSnapshot(api, org, own.snapshot.id)).toBe('success');
    const results = await requestOk(api, org.keys.admin, 'GET', `/experiments/${experiment.id}/results`);

    expectShape(contract.postReport, created.body);
    expectReferenceReport(created.body.report);
    expect(created.body.report).toMatchObject({
      title: 'Launch review',
      description: '',
      type: 'experiment-snapshot',
      status: 'private',
      shareLevel: 'private',
      experimentId: experiment.id,
      snapshotStatus: 'running',
      analysisSettings: {
        statsEngine: 'frequentist',
        goalMetrics: [metricId],
        dateStarted: new Date(START).toISOString(),
        dateEnded: new Date(END).toISOString(),
        trackingKey: TRACKING_KEY,
        exposureQueryId: 'user_exposures',
        dimension: '',
      },
    });
    // The report's snapshot is not the experiment's: its results had none before it asked for its own.
    expect(beforeOwn.status).toBe(404);
    expect(report.status).toBe(200);
    expectReferenceReport(report.body.report);
    expect(report.body.report).toMatchObject({ snapshotStatus: 'success', experimentMetadata: { type: 'standard', variations: [{ name: 'Control', weight: 0.5 }, { name: 'Treatment', weight: 0.5 }] } });
    expect(results.result.id).toBe(own.snapshot.id);
    expect(numbersOf(report.body.report.results)).toEqual(numbersOf(results.result));
  });

  it('stage settings until a refresh, which runs them: other dates and engine give other results', async () => {
    const { report } = await post('/reports', { experimentId: experiment.id });
    expect(await waitForSnapshot(api, org, report.snapshotId)).toBe('success');
    const first = (await requestOk(api, org.keys.admin, 'GET', `/reports/${report.id}`)).report;
    const dateEnded = new Date(START + 7 * 86_400_000).toISOString();

    const staged = await request('PUT', `/reports/${report.id}/settings`, { dateEnded, statsEngine: 'bayesian' });
    const refreshed = await request('POST', `/reports/${report.id}/refresh`);
    expect(await waitForSnapshot(api, org, refreshed.body.report.snapshotId)).toBe('success');
    const after = (await requestOk(api, org.keys.admin, 'GET', `/reports/${report.id}`)).report;

    expect(staged.status).toBe(200);
    expectReferenceReport(staged.body.report);
    expect(staged.body.report).toMatchObject({ snapshotId: report.snapshotId, analysisSettings: { dateEnded, statsEngine: 'bayesian' }, results: first.results });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.report.snapshotId).not.toBe(report.snapshotId);
    expect(after.results.dateEnd).toBe(dateEnded);
    expect(after.results.results[0].metrics[0].variations[1].analyses[0].engine).toBe('bayesian');
    expect(after.results.results[0].totalUsers).toBeLessThan(first.results.results[0].totalUsers);
  });

  it('change their metadata, and list by experiment', async () => {
    const { report } = await post('/reports', { experimentId: experiment.id, description: 'Draft' });

    const changed = await request('PUT', `/reports/${report.id}/metadata`, { title: 'Final', status: 'published', shareLevel: 'organization', editLevel: 'organization' });
    const listed = await requestOk(api, org.keys.admin, 'GET', `/reports?experimentId=${experiment.id}&limit=100`);

    expect(changed.status).toBe(200);
    expectReferenceReport(changed.body.report);
    expect(changed.body.report).toMatchObject({ title: 'Final', description: 'Draft', status: 'published', shareLevel: 'organization' });
    expect(listed.reports.map((r: { id: string }) => r.id)).toContain(report.id);
    expect(listed.reports.find((r: { id: string }) => r.id === report.id)).toMatchObject({ title: 'Final' });
    for (const r of listed.reports) expectReferenceReport(r);
  });

  it.each([
    ['an unknown experiment', { experimentId: 'exp_missing' }, /\[experimentId\] no experiment has the id exp_missing/],
    ['a public share level (no public report page is served)', { shareLevel: 'public' }, /\[shareLevel\] public reports are not served/],
    ['dates running backwards', { dateStarted: '2024-03-10T00:00:00Z', dateEnded: '2024-03-05T00:00:00Z' }, /\[dateEnded\] must be after dateStarted/],
    ['an unknown metric', { goalMetrics: ['fact__missing'] }, /\[goalMetrics\.0\] no fact metric has the id fact__missing/],
    ['a dimension the assignment query lacks', { dimension: 'exp:browser' }, /\[dimension\] browser is not a dimension column/],
    // Segments are analysed; one that does not exist is refused.
    ['an unknown segment', { segment: 'seg_1' }, /segment seg_1 does not exist/],
    ['a date that is not one', { dateStarted: 'soon' }, /\[dateStarted\]/],
    ['an unknown field', { colour: 'red' }, /colour/],
  ])('refuses %s on create with 400, storing nothing', async (_case, fields, message) => {
    const before = await reportCount();

    const response = await request('POST', '/reports', { experimentId: experiment.id, ...fields });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await reportCount()).toBe(before);
  });

  it('refuses bad settings and metadata with 400, changing nothing', async () => {
    const { report } = await post('/reports', { experimentId: experiment.id });
    const before = (await requestOk(api, org.keys.admin, 'GET', `/reports/${report.id}`)).report;

    const responses = await Promise.all([
      request('PUT', `/reports/${report.id}/settings`, { dateEnded: '2020-01-01T00:00:00Z' }),
      request('PUT', `/reports/${report.id}/settings`, { secondaryMetrics: ['met_missing'] }),
      request('PUT', `/reports/${report.id}/metadata`, { title: '' }),
      request('PUT', `/reports/${report.id}/metadata`, { shareLevel: 'public' }),
      request('PUT', `/reports/${report.id}/metadata`, { status: 'archived' }),
    ]);

    expect(responses.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    expect(responses[0]!.body.message).toMatch(/\[dateEnded\] must be after dateStarted/);
    expect(responses[1]!.body.message).toMatch(/\[secondaryMetrics\.0\] no fact metric has the id met_missing/);
    const after = (await requestOk(api, org.keys.admin, 'GET', `/reports/${report.id}`)).report;
    expect({ ...after, snapshotStatus: undefined, results: undefined }).toEqual({ ...before, snapshotStatus: undefined, results: undefined });
  });

  it("answers 404 for another organization's report on every route, 403 to a read-only key, and never lists it", async () => {
    const { report } = await post('/reports', { experimentId: experiment.id });

    const foreign = await Promise.all([
      request('GET', `/reports/${report.id}`, undefined, other.keys.admin),
      request('PUT', `/reports/${report.id}/metadata`, { title: 'Theirs' }, other.keys.admin),
      request('PUT', `/reports/${report.id}/settings`, { statsEngine: 'bayesian' }, other.keys.admin),
      request('POST', `/reports/${report.id}/refresh`, undefined, other.keys.admin),
    ]);
    const readonly = await request('POST', '/reports', { experimentId: experiment.id }, org.keys.readonly);
    const theirList = await requestOk(api, other.keys.admin, 'GET', '/reports?limit=100');

    expect(foreign.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect(readonly.status).toBe(403);
    expect(theirList.reports.map((r: { id: string }) => r.id)).not.toContain(report.id);
    expect((await requestOk(api, org.keys.admin, 'GET', `/reports/${report.id}`)).report.title).toBe(report.title);
  });
});
