import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as contract from '../../shared/contracts/experiment-results';
import { syntheticExperiment, writeSyntheticFiles } from '../support/analysis-data';
import { createDuckDbDataSource, waitForSnapshot } from '../support/analysis-api';
import { createTestOrg, expectShape, requestOk, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

const START = Date.parse('2024-03-01T00:00:00Z');
const END = Date.parse('2024-03-15T00:00:00Z');
const TRACKING_KEY = 'list-results';

let api: Api;
let org: TestOrg;
let other: TestOrg;
const dataDir = mkdtempSync(path.join(tmpdir(), 'results-list-'));

beforeAll(async () => {
  mkdirSync(path.join(dataDir, 'events'));
  writeSyntheticFiles(dataDir, syntheticExperiment({ seed: 7, units: 2_000, trackingKey: TRACKING_KEY, start: START, end: END }));
  process.env.ANALYSIS_DATA_DIR = dataDir;
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Portfolio org'), createTestOrg('Other org')]);
});
afterAll(() => api.close());

const validResults = referenceSchemaValidator('ExperimentResults', 'growthbook-5.0.1-openapi.yaml');
const validPagination = referenceSchemaValidator('PaginationFields', 'growthbook-5.0.1-openapi.yaml');
const list = (query: string, testOrg = org, key = testOrg.keys.admin) => api.request('GET', `/api/v1/experiments/results${query}`, { key });

let counter = 0;
/** A traffic-only experiment over the synthetic exposures; with `snapshot`, its snapshot run to success. */
async function experimentOver(datasource: string, fields: Record<string, unknown> = {}, snapshot = true, testOrg = org) {
  const { experiment } = await requestOk(api, testOrg.keys.admin, 'POST', '/experiments', {
    trackingKey: TRACKING_KEY,
    bypassDuplicateKeyCheck: true,
    name: `Portfolio ${++counter}`,
    status: 'running',
    datasourceId: datasource,
    assignmentQueryId: 'user_exposures',
    variations: [
      { key: '0', name: 'Control' },
      { key: '1', name: 'Treatment' },
    ],
    phases: [{ name: 'Main', dateStarted: new Date(START).toISOString(), dateEnded: new Date(END).toISOString() }],
    ...fields,
  });
  if (snapshot) {
    const started = await requestOk(api, testOrg.keys.admin, 'POST', `/experiments/${experiment.id}/snapshot`, {});
    expect(await waitForSnapshot(api, testOrg, started.snapshot.id)).toBe('success');
  }
  return experiment as { id: string };
}

describe('GET /experiments/results', () => {
  it("answers each experiment's latest overall results, as GET /experiments/{id}/results does, leaving out those without a snapshot", async () => {
    const dataSource = await createDuckDbDataSource(api, org);
    const first = await experimentOver(dataSource.id);
    const unanalysed = await experimentOver(dataSource.id, {}, false);
    const second = await experimentOver(dataSource.id);
    // A dimension snapshot is not the overall result: the list keeps the overall one.
    const dimensioned = await requestOk(api, org.keys.admin, 'POST', `/experiments/${second.id}/snapshot`, { dimension: 'exp:country' });
    expect(await waitForSnapshot(api, org, dimensioned.snapshot.id)).toBe('success');

    const response = await list(`?datasourceId=${dataSource.id}`);
    const one = await requestOk(api, org.keys.admin, 'GET', `/experiments/${first.id}/results`);
    const two = await requestOk(api, org.keys.admin, 'GET', `/experiments/${second.id}/results`);

    expect(response.status).toBe(200);
    expectShape(contract.listExperimentResults, response.body);
    const { experimentResults, ...pagination } = response.body;
    expect(validPagination(pagination) ? [] : validPagination.errors).toEqual([]);
    for (const result of experimentResults) expect(validResults(result) ? [] : validResults.errors).toEqual([]);
    expect(experimentResults).toEqual([one.result, two.result]);
    expect(experimentResults.map((r: { experimentId: string }) => r.experimentId)).not.toContain(unanalysed.id);
    expect(experimentResults[1].dimension).toEqual({ type: 'none' });
    expect(pagination).toEqual({ limit: 10, offset: 0, count: 2, total: 3, hasMore: false, nextOffset: null });
  });

  it('pages over experiments, not results: a page can hold fewer results than its size', async () => {
    const dataSource = await createDuckDbDataSource(api, org);
    await experimentOver(dataSource.id, {}, false);
    const analysed = await experimentOver(dataSource.id);

    const firstPage = await list(`?datasourceId=${dataSource.id}&limit=1`);
    const secondPage = await list(`?datasourceId=${dataSource.id}&limit=1&offset=1`);

    expect(firstPage.body).toEqual({ experimentResults: [], limit: 1, offset: 0, count: 0, total: 2, hasMore: true, nextOffset: 1 });
    expect(secondPage.body).toMatchObject({ count: 1, total: 2, hasMore: false, nextOffset: null });
    expect(secondPage.body.experimentResults[0].experimentId).toBe(analysed.id);
  });

  it('filters by status and by project', async () => {
    const dataSource = await createDuckDbDataSource(api, org);
    const { project } = await requestOk(api, org.keys.admin, 'POST', '/projects', { name: `Portfolio ${Date.now()}` });
    const inProject = await experimentOver(dataSource.id, { project: project.id });
    await experimentOver(dataSource.id);

    const byProject = await list(`?projectId=${project.id}`);
    const drafts = await list(`?datasourceId=${dataSource.id}&status=draft`);

    expect(byProject.body.experimentResults.map((r: { experimentId: string }) => r.experimentId)).toEqual([inProject.id]);
    expect(drafts.body).toMatchObject({ experimentResults: [], total: 0 });
  });

  it("never shows another organization's results", async () => {
    const theirSource = await createDuckDbDataSource(api, other);
    await experimentOver(theirSource.id, {}, true, other);

    const response = await list(`?datasourceId=${theirSource.id}`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ experimentResults: [], total: 0 });
  });

  it.each([
    ['a status GrowthBook does not have', '?status=paused', /\[status\]/],
    ['a limit over 100', '?limit=101', /\[limit\]/],
    ['a negative offset', '?offset=-1', /\[offset\]/],
    ['an empty project id', '?projectId=', /\[projectId\]/],
  ])('answers 400 naming the problem for %s', async (_case, query, message) => {
    const response = await list(query);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('answers 401 without a key', async () => {
    const response = await api.request('GET', '/api/v1/experiments/results');

    expect(response.status).toBe(401);
  });
});
