import { MAX_IMPORT_ITEMS } from '../../shared/contracts/bulk-import';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

// The smaller checks GrowthBook does not make: each one is either aligned with GrowthBook (enum
// attributes without values) or kept, as README's "Compatibility" section says and why, with a clear
// 400 naming the field and nothing stored.

let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Test org', { dataSources: ['ds_main'] });
});
afterAll(() => api.close());

const request = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}`;
const variations = [
  { key: '0', name: 'A' },
  { key: '1', name: 'B' },
];

describe('environment ids (kept: an id is a path segment and a key of every feature)', () => {
  it.each(['prod#1', 'a/b', 'my env', 'é'])('refuses %p and stores nothing', async (id) => {
    const response = await request('POST', '/environments', { id });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[id\] may hold only letters, numbers, dashes and underscores/);
    expect((await request('GET', '/environments')).body.environments.map((e: { id: string }) => e.id)).not.toContain(id);
  });

  it('takes letters, digits, dashes and underscores', async () => {
    expect((await request('POST', '/environments', { id: 'qa_EU-2' })).status).toBe(200);
  });
});

describe('experiment bucket versions and winner (kept: whole numbers)', () => {
  it.each([
    ['a fractional bucketVersion', { bucketVersion: 1.5 }, /\[bucketVersion\]/],
    ['a negative minBucketVersion', { minBucketVersion: -1 }, /\[minBucketVersion\]/],
  ])('refuses %s on create', async (_case, fields, message) => {
    const response = await request('POST', '/experiments', { trackingKey: unique('bv'), name: 'E', variations, ...fields });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('takes whole bucket versions, and a winner that indexes a variation, stored as its id', async () => {
    const created = await request('POST', '/experiments', { trackingKey: unique('bv'), name: 'E', variations, bucketVersion: 2, minBucketVersion: 1 });
    const fraction = await request('POST', `/experiments/${created.body.experiment.id}`, { status: 'stopped', results: 'won', winner: 0.5 });
    const whole = await request('POST', `/experiments/${created.body.experiment.id}`, { status: 'stopped', results: 'won', winner: 1 });

    expect(created.status).toBe(200);
    expect(created.body.experiment).toMatchObject({ bucketVersion: 2, minBucketVersion: 1 });
    expect(fraction.status).toBe(400);
    expect(fraction.body.message).toMatch(/\[winner\]/);
    expect(whole.status).toBe(200);
    expect(whole.body.experiment.resultSummary.winner).toBe(created.body.experiment.variations[1].variationId);
  });
});

describe('phase coverage (kept: between 0 and 1, what SDKs serve)', () => {
  it.each([1.5, -0.1])('refuses coverage %p', async (coverage) => {
    const response = await request('POST', '/experiments', {
      trackingKey: unique('cov'),
      name: 'E',
      variations,
      phases: [{ name: 'Main', dateStarted: '2024-05-01', coverage }],
    });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[phases\.0\.coverage\]/);
  });
});

describe('enum attributes (aligned: values are optional, as in GrowthBook)', () => {
  it('creates an enum attribute without values', async () => {
    const response = await request('POST', '/attributes', { property: unique('plan'), datatype: 'enum' });

    expect(response.status).toBe(200);
    expect(response.body.attribute).toMatchObject({ datatype: 'enum', enum: '' });
  });
});

describe('bulk imports (kept: strict items, at most MAX_IMPORT_ITEMS of them)', () => {
  const table = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    data: { name: id, datasource: 'ds_main', userIdTypes: ['id'], sql: 'SELECT 1', ...extra },
  });
  const tableCount = async () => (await request('GET', '/fact-tables?limit=1')).body.total;

  it.each([
    ['a field an item does not have', { factTables: [{ ...table(unique('t')), note: 'x' }] }, /\[factTables\.0\].*note/],
    ['a field an item\'s data does not have', { factTables: [table(unique('t'), { sqll: 'SELECT 2' })] }, /\[factTables\.0\.data\].*sqll/],
  ])('refuses %s, naming it, and writes nothing', async (_case, body, message) => {
    const before = await tableCount();

    const response = await request('POST', '/bulk-import/facts', body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await tableCount()).toBe(before);
  });

  it(`refuses more than ${MAX_IMPORT_ITEMS} items and writes nothing`, async () => {
    const before = await tableCount();
    const factTables = Array.from({ length: MAX_IMPORT_ITEMS + 1 }, (_, i) => table(`cap_${i}`));

    const response = await request('POST', '/bulk-import/facts', { factTables });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`at most ${MAX_IMPORT_ITEMS} items`));
    expect(await tableCount()).toBe(before);
  });
});
