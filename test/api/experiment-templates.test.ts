import * as contract from '../../shared/contracts/experiment-templates';
import { newId } from '../../shared/ids';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

/** The data sources the fact tables, experiments and templates of this file name. */
const dataSources = ['ds_warehouse', 'ds_other'];

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg('Test org', { dataSources }), createTestOrg('Other org', { dataSources })]);
});
afterAll(() => api.close());

const template = (fields: Record<string, unknown> = {}) => ({
  templateMetadata: { name: 'Checkout test', description: 'For checkout changes' },
  type: 'standard',
  datasource: 'ds_warehouse',
  exposureQueryId: 'user_id',
  statsEngine: 'bayesian',
  targeting: { coverage: 1, condition: '{}' },
  ...fields,
});

/** A fact metric computed from `datasource`, made through the API. */
async function factMetric(testOrg: TestOrg, datasource: string): Promise<string> {
  const table = await api.request('POST', '/api/v1/fact-tables', {
    key: testOrg.keys.admin,
    body: { name: 'Orders', datasource, userIdTypes: ['user_id'], sql: 'SELECT * FROM orders' },
  });
  const metric = await api.request('POST', '/api/v1/fact-metrics', {
    key: testOrg.keys.admin,
    body: { name: 'Ordered', metricType: 'proportion', numerator: { factTableId: table.body.factTable.id, column: '$$distinctUsers' } },
  });
  return metric.body.factMetric.id;
}

const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/experiment-templates', { key, body });
const get = (id: string, key = org.keys.admin) => api.request('GET', `/api/v1/experiment-templates/${id}`, { key });
const list = (testOrg = org, query = '') => api.request('GET', `/api/v1/experiment-templates${query}`, { key: testOrg.keys.readonly });
const newProject = async (orgId: string) => (await projects.create(orgId, { id: newId('prj_'), name: 'Shop' })).id;

describe('POST /experiment-templates', () => {
  it('creates a template', async () => {
    const group = await api.request('POST', '/api/v1/saved-groups', { key: org.keys.admin, body: { name: 'beta', condition: '{"id":"1"}' } });
    const body = template({
      hypothesis: 'Shorter forms convert',
      tags: ['checkout'],
      goalMetrics: [await factMetric(org, 'ds_warehouse')],
      targeting: { coverage: 0.5, condition: '{"country":"US"}', savedGroups: [{ match: 'all', ids: [group.body.savedGroup.id] }] },
    });

    const response = await create(body);

    expect(response.status).toBe(200);
    expectShape(contract.createExperimentTemplate, response.body);
    expect(response.body.experimentTemplate).toEqual({
      ...body,
      id: expect.stringMatching(/^tmplt__/),
      owner: '',
      dateCreated: expect.any(String),
      dateUpdated: expect.any(String),
    });
  });

  it('makes the member behind a personal access token the owner', async () => {
    const response = await create(template(), org.admin.token);

    expect(response.body.experimentTemplate).toMatchObject({ owner: org.admin.memberId, ownerEmail: org.admin.email });
  });

  it.each([
    ['missing templateMetadata', { templateMetadata: undefined }, /\[templateMetadata\]/],
    ['a template without a name', { templateMetadata: { description: 'x' } }, /\[templateMetadata\.name\]/],
    ['a type other than standard', { type: 'multi-armed-bandit' }, /\[type\]/],
    ['a missing datasource', { datasource: undefined }, /\[datasource\]/],
    ['a missing exposureQueryId', { exposureQueryId: undefined }, /\[exposureQueryId\]/],
    ['an unknown statsEngine', { statsEngine: 'magic' }, /\[statsEngine\]/],
    ['missing targeting', { targeting: undefined }, /\[targeting\]/],
    ['coverage above 1', { targeting: { coverage: 2, condition: '{}' } }, /\[targeting\.coverage\]/],
    ['a condition that is not JSON', { targeting: { coverage: 1, condition: 'x' } }, /\[targeting\.condition\]/],
    ['an unknown saved group match', { targeting: { coverage: 1, condition: '{}', savedGroups: [{ match: 'some', ids: [] }] } }, /match/],
    ['an unknown saved group', { targeting: { coverage: 1, condition: '{}', savedGroups: [{ match: 'any', ids: ['grp_none'] }] } }, /\[targeting\.savedGroups\.0\.ids\.0\]/],
    ['an unknown project', { project: 'prj_none' }, /\[project\]/],
    ['an unknown metric', { goalMetrics: ['fact__none'] }, /\[goalMetrics\.0\]/],
    ['a metric of another datasource', { guardrailMetrics: ['OTHER_DATASOURCE'] }, /\[guardrailMetrics\.0\]/],
    ['an unknown segment', { segment: 'seg_none' }, /\[segment\]/],
    ['an unknown prerequisite feature', { targeting: { coverage: 1, condition: '{}', prerequisites: [{ id: 'no-flag', condition: '{}' }] } }, /\[targeting\.prerequisites\.0\.id\]/],
    ['an unknown field', { owner: 'someone' }, /owner/],
  ])('answers 400 for %s and stores nothing', async (_case, fields, message) => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const elsewhere = await factMetric(fresh, 'ds_other');
    const body = JSON.parse(JSON.stringify(template(fields)).replace('OTHER_DATASOURCE', elsewhere));

    const response = await create(body, fresh.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect((await list(fresh)).body.experimentTemplates).toEqual([]);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create(template(), org.keys.readonly);

    expect(response.status).toBe(403);
  });
});

describe('GET /experiment-templates', () => {
  it('lists every template, or those of one project', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const project = await newProject(fresh.orgId);
    const plain = await create(template(), fresh.keys.admin);
    const inProject = await create(template({ project }), fresh.keys.admin);

    const all = await list(fresh);
    const filtered = await list(fresh, `?projectId=${project}`);

    expectShape(contract.listExperimentTemplates, all.body);
    expect(all.body.experimentTemplates).toEqual([plain.body.experimentTemplate, inProject.body.experimentTemplate]);
    expect(filtered.body.experimentTemplates).toEqual([inProject.body.experimentTemplate]);
  });

  it('never shows another organization its templates', async () => {
    await create(template());

    const response = await list(await createTestOrg('Test org', { dataSources }));

    expect(response.body).toEqual({ experimentTemplates: [] });
  });
});

describe('GET /experiment-templates/{id}', () => {
  it('returns the template', async () => {
    const { body: created } = await create(template());

    const response = await get(created.experimentTemplate.id, org.keys.readonly);

    expectShape(contract.getExperimentTemplate, response.body);
    expect(response.body).toEqual(created);
  });

  it('answers 404 for an unknown id and for another organization', async () => {
    const { body: created } = await create(template());

    const unknown = await get('tmplt__missing');
    const foreign = await get(created.experimentTemplate.id, other.keys.admin);

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });
});

describe('PUT /experiment-templates/{id}', () => {
  it('changes only the given fields', async () => {
    const { body: created } = await create(template({ hypothesis: 'kept' }));

    const response = await api.request('PUT', `/api/v1/experiment-templates/${created.experimentTemplate.id}`, {
      key: org.keys.engineer,
      body: { templateMetadata: { name: 'Renamed' }, statsEngine: 'frequentist' },
    });

    expect(response.status).toBe(200);
    expectShape(contract.updateExperimentTemplate, response.body);
    expect(response.body.experimentTemplate).toMatchObject({
      templateMetadata: { name: 'Renamed' },
      statsEngine: 'frequentist',
      hypothesis: 'kept',
      dateCreated: created.experimentTemplate.dateCreated,
    });
  });

  it.each([
    ['an unknown statsEngine', { statsEngine: 'magic' }],
    ['an unknown project', { project: 'prj_none' }],
    ['an unknown field', { id: 'tmplt__other' }],
  ])('answers 400 for %s and leaves the template unchanged', async (_case, body) => {
    const { body: created } = await create(template());

    const response = await api.request('PUT', `/api/v1/experiment-templates/${created.experimentTemplate.id}`, { key: org.keys.admin, body });

    expect(response.status).toBe(400);
    expect((await get(created.experimentTemplate.id)).body).toEqual(created);
  });

  it("answers 404 for an unknown id and for another organization's template", async () => {
    const { body: created } = await create(template());

    const unknown = await api.request('PUT', '/api/v1/experiment-templates/tmplt__missing', { key: org.keys.admin, body: {} });
    const foreign = await api.request('PUT', `/api/v1/experiment-templates/${created.experimentTemplate.id}`, { key: other.keys.admin, body: {} });

    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(template());

    const response = await api.request('PUT', `/api/v1/experiment-templates/${created.experimentTemplate.id}`, { key: org.keys.readonly, body: {} });

    expect(response.status).toBe(403);
  });
});

describe('DELETE /experiment-templates/{id}', () => {
  it('deletes the template and answers with its id', async () => {
    const { body: created } = await create(template());

    const response = await api.request('DELETE', `/api/v1/experiment-templates/${created.experimentTemplate.id}`, { key: org.keys.admin });

    expect(response.status).toBe(200);
    expectShape(contract.deleteExperimentTemplate, response.body);
    expect(response.body).toEqual({ deletedId: created.experimentTemplate.id });
    expect((await get(created.experimentTemplate.id)).status).toBe(404);
  });

  it("answers 404 for another organization's template and keeps it", async () => {
    const { body: created } = await create(template());

    const response = await api.request('DELETE', `/api/v1/experiment-templates/${created.experimentTemplate.id}`, { key: other.keys.admin });

    expect(response.status).toBe(404);
    expect((await get(created.experimentTemplate.id)).status).toBe(200);
  });

  it('answers 403 for a readonly key', async () => {
    const { body: created } = await create(template());

    const response = await api.request('DELETE', `/api/v1/experiment-templates/${created.experimentTemplate.id}`, { key: org.keys.readonly });

    expect(response.status).toBe(403);
  });
});

describe('POST /experiment-templates/bulk-import', () => {
  const bulk = (templates: unknown[], key: string) =>
    api.request('POST', '/api/v1/experiment-templates/bulk-import', { key, body: { templates } });

  it('creates new templates and updates existing ones, adding the id prefix where missing', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const { body: existing } = await create(template({ hypothesis: 'old' }), fresh.keys.admin);

    const response = await bulk(
      [
        { id: 'checkout', data: template({ templateMetadata: { name: 'Imported' } }) },
        { id: existing.experimentTemplate.id, data: template({ hypothesis: 'new' }) },
        { id: 'tmplt__signup', data: template() },
      ],
      fresh.keys.admin,
    );

    expect(response.status).toBe(200);
    expectShape(contract.bulkImportExperimentTemplates, response.body);
    expect(response.body).toEqual({ added: 2, updated: 1 });
    const ids = (await list(fresh)).body.experimentTemplates.map((t: { id: string }) => t.id);
    expect(ids).toEqual([existing.experimentTemplate.id, 'tmplt__checkout', 'tmplt__signup']);
    expect((await get(existing.experimentTemplate.id, fresh.keys.admin)).body.experimentTemplate.hypothesis).toBe('new');
    expect((await get('tmplt__checkout', fresh.keys.admin)).body.experimentTemplate.templateMetadata.name).toBe('Imported');
  });

  it('counts a repeated id as an addition then an update, keeping the last data', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });

    const response = await bulk(
      [
        { id: 'twice', data: template({ hypothesis: 'first' }) },
        { id: 'tmplt__twice', data: template({ hypothesis: 'second' }) },
      ],
      fresh.keys.admin,
    );

    expect(response.body).toEqual({ added: 1, updated: 1 });
    expect((await get('tmplt__twice', fresh.keys.admin)).body.experimentTemplate.hypothesis).toBe('second');
  });

  it('writes more templates than fit in one transaction', async () => {
    const fresh = await createTestOrg('Test org', { dataSources });
    const templates = Array.from({ length: 130 }, (_, i) => ({ id: `many-${i}`, data: template() }));

    const response = await bulk(templates, fresh.keys.admin);

    expect(response.body).toEqual({ added: 130, updated: 0 });
    expect((await list(fresh)).body.experimentTemplates).toHaveLength(130);
  });

  it.each([
    ['an item without an id', [{ data: template() }], /\[templates\.0\.id\]/],
    ['an item with invalid data', [{ id: 'a', data: template() }, { id: 'b', data: template({ statsEngine: 'magic' }) }], /\[templates\.1\.data\.statsEngine\]/],
    ['an item naming an unknown saved group', [{ id: 'a', data: template() }, { id: 'b', data: template({ targeting: { coverage: 1, condition: '{}', savedGroups: [{ match: 'all', ids: ['grp_none'] }] } }) }], /\[templates\.1\.data\.targeting\.savedGroups\.0\.ids\.0\]/],
    ['an unknown field', [{ id: 'a', data: template(), extra: true }], /extra/],
  ])('answers 400 for %s and writes nothing', async (_case, templates, message) => {
    const fresh = await createTestOrg('Test org', { dataSources });

    const response = await bulk(templates, fresh.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect((await list(fresh)).body.experimentTemplates).toEqual([]);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await bulk([{ id: 'a', data: template() }], org.keys.readonly);

    expect(response.status).toBe(403);
  });
});
