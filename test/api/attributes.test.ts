import * as contract from '../../shared/contracts/attributes';
import { projects } from '../../shared/store/projects';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';

let api: Api;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startApi();
  [org, other] = await Promise.all([createTestOrg(), createTestOrg('Other org')]);
  await Promise.all([
    ...['prj_a', 'prj_b'].map((id) => projects.create(org.orgId, { id, name: id })),
    projects.create(other.orgId, { id: 'prj_other', name: 'Other project' }),
  ]);
});
afterAll(() => api.close());

let counter = 0;
const uniqueProperty = () => `attr_${++counter}`;
const create = (body: unknown, key = org.keys.admin) => api.request('POST', '/api/v1/attributes', { key, body });
const newAttribute = async (body: Record<string, unknown> = {}) =>
  (await create({ property: uniqueProperty(), datatype: 'string', ...body })).body.attribute;
const path = (property: string) => `/api/v1/attributes/${encodeURIComponent(property)}`;
const put = (property: string, body: unknown, key = org.keys.admin) => api.request('PUT', path(property), { key, body });
const listed = async (key = org.keys.admin) => (await api.request('GET', '/api/v1/attributes', { key })).body.attributes;
const find = async (property: string) => (await listed()).find((a: { property: string }) => a.property === property);

describe('POST /attributes', () => {
  it('creates an attribute with defaults for the fields not given', async () => {
    const response = await create({ property: 'country', datatype: 'string', description: 'Where the user is' });

    expect(response.status).toBe(200);
    expectShape(contract.postAttribute, response.body);
    expect(response.body.attribute).toEqual({
      property: 'country',
      datatype: 'string',
      description: 'Where the user is',
      hashAttribute: false,
      archived: false,
      enum: '',
      format: '',
      projects: [],
      tags: [],
    });
  });

  it('stores every documented field', async () => {
    const body = {
      property: 'plan',
      datatype: 'enum',
      description: 'Billing plan',
      archived: true,
      hashAttribute: true,
      enum: 'free, pro',
      format: '',
      projects: ['prj_a'],
      tags: ['billing'],
    };

    const response = await create(body);

    expect(response.status).toBe(200);
    expectShape(contract.postAttribute, response.body);
    expect(response.body.attribute).toEqual(body);
  });

  it('accepts an enum attribute without values, as GrowthBook does, and takes them later', async () => {
    const property = uniqueProperty();

    const created = await create({ property, datatype: 'enum' });
    const updated = await put(property, { enum: 'free, pro' });

    expect(created.status).toBe(200);
    expect(created.body.attribute).toMatchObject({ datatype: 'enum', enum: '' });
    expect(updated.body.attribute).toMatchObject({ datatype: 'enum', enum: 'free, pro' });
  });

  it('stores no values for a datatype they do not apply to, as GrowthBook does', async () => {
    const property = uniqueProperty();

    const response = await create({ property, datatype: 'string', enum: 'a, b' });
    const list = await create({ property: uniqueProperty(), datatype: 'string[]', enum: 'a, b' });

    expect(response.status).toBe(200);
    expect(response.body.attribute.enum).toBe('');
    expect(await find(property)).toMatchObject({ enum: '' });
    expect(list.body.attribute.enum).toBe('a, b');
  });

  it.each(contract.attributeDatatypes)('accepts the datatype %s', async (datatype) => {
    const response = await create({ property: uniqueProperty(), datatype, ...(datatype === 'enum' ? { enum: 'a,b' } : {}) });

    expect(response.status).toBe(200);
  });

  it.each(contract.attributeFormats)('accepts the format "%s"', async (format) => {
    const response = await create({ property: uniqueProperty(), datatype: 'string', format });

    expect(response.status).toBe(200);
    expect(response.body.attribute.format).toBe(format);
  });

  it('answers 409 already_exists for a property that exists and keeps the first', async () => {
    const property = uniqueProperty();
    await create({ property, datatype: 'string', description: 'first' });

    const response = await create({ property, datatype: 'number', description: 'second' });

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('already_exists');
    expect(await find(property)).toMatchObject({ datatype: 'string', description: 'first' });
  });

  it('lets another organization use the same property', async () => {
    const property = uniqueProperty();
    await create({ property, datatype: 'string' });

    const response = await create({ property, datatype: 'number' }, other.keys.admin);

    expect(response.status).toBe(200);
  });

  it.each([
    ['a missing property', { datatype: 'string' }, /\[property\]/],
    ['an empty property', { property: '', datatype: 'string' }, /\[property\]/],
    ['a missing datatype', { property: 'x1' }, /\[datatype\]/],
    ['an unknown datatype', { property: 'x2', datatype: 'date' }, /\[datatype\]/],
    ['an unknown format', { property: 'x3', datatype: 'string', format: 'email' }, /\[format\]/],
    ['a hashAttribute that is not a boolean', { property: 'x6', datatype: 'string', hashAttribute: 'yes' }, /\[hashAttribute\]/],
    ['an unknown project', { property: 'x9', datatype: 'string', projects: ['prj_missing'] }, /\[projects\] .*prj_missing/],
    ["another organization's project", { property: 'x10', datatype: 'string', projects: ['prj_other'] }, /\[projects\]/],
    ['tags that are not strings', { property: 'x7', datatype: 'string', tags: [1] }, /\[tags\.0\]/],
    ['an unknown field', { property: 'x8', datatype: 'string', colour: 'red' }, /colour/],
  ])('answers 400 for %s and stores nothing', async (_case, body, message) => {
    const fresh = await createTestOrg();

    const response = await create(body, fresh.keys.admin);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(response.body.message).toMatch(/^Request body: /);
    expect(await listed(fresh.keys.admin)).toEqual([]);
  });

  it('answers 403 for a readonly key', async () => {
    const response = await create({ property: uniqueProperty(), datatype: 'string' }, org.keys.readonly);

    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden');
  });

  it('lets an engineer key write', async () => {
    const response = await create({ property: uniqueProperty(), datatype: 'string' }, org.keys.engineer);

    expect(response.status).toBe(200);
  });
});

describe('GET /attributes', () => {
  it('lists every attribute of the organization in creation order, without pagination', async () => {
    const fresh = await createTestOrg();
    const first = (await create({ property: 'b_first', datatype: 'string' }, fresh.keys.admin)).body.attribute;
    const second = (await create({ property: 'a_second', datatype: 'number' }, fresh.keys.admin)).body.attribute;

    const response = await api.request('GET', '/api/v1/attributes', { key: fresh.keys.readonly });

    expect(response.status).toBe(200);
    expectShape(contract.listAttributes, response.body);
    expect(response.body).toEqual({ attributes: [first, second] });
  });

  it('never shows another organization its attributes', async () => {
    const fresh = await createTestOrg();

    expect(await listed(fresh.keys.admin)).toEqual([]);
  });

  it('answers 403 for a noaccess key', async () => {
    const response = await api.request('GET', '/api/v1/attributes', { key: org.keys.noaccess });

    expect(response.status).toBe(403);
  });
});

describe('PUT /attributes/{property}', () => {
  it('changes only the given fields', async () => {
    const created = await newAttribute({ description: 'kept', tags: ['t'] });
    const change = { datatype: 'enum', archived: true, hashAttribute: true, enum: 'a,b', format: 'version', projects: ['prj_b'] };

    const response = await put(created.property, change);

    expect(response.status).toBe(200);
    expectShape(contract.putAttribute, response.body);
    expect(response.body.attribute).toEqual({ ...created, ...change });
    expect(await find(created.property)).toEqual(response.body.attribute);
  });

  it('addresses a property with a dot and a space in the path', async () => {
    const created = await newAttribute({ property: `user.home country ${++counter}` });

    const response = await put(created.property, { description: 'found' });

    expect(response.status).toBe(200);
    expect(response.body.attribute).toMatchObject({ property: created.property, description: 'found' });
  });

  it.each([
    ['an unknown datatype', { datatype: 'date' }, /\[datatype\]/],
    ['an unknown format', { format: 'email' }, /\[format\]/],
    ["another organization's project", { projects: ['prj_other'] }, /\[projects\]/],
    ['a new property, which is the id', { property: 'renamed' }, /property/],
  ])('answers 400 for %s and leaves the attribute unchanged', async (_case, body, message) => {
    const created = await newAttribute();

    const response = await put(created.property, body);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
    expect(await find(created.property)).toEqual(created);
  });

  it('answers 404 for an unknown property', async () => {
    const response = await put('never_created', { description: 'x' });

    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('never_created') });
  });

  it("answers 404 for another organization's attribute and leaves it unchanged", async () => {
    const created = await newAttribute();

    const response = await put(created.property, { description: 'taken' }, other.keys.admin);

    expect(response.status).toBe(404);
    expect(await find(created.property)).toEqual(created);
  });

  it('answers 403 for a readonly key', async () => {
    const created = await newAttribute();

    const response = await put(created.property, { description: 'x' }, org.keys.readonly);

    expect(response.status).toBe(403);
  });

  it('loses no write when many clients update different fields at once', async () => {
    const created = await newAttribute();

    const responses = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => put(created.property, { description: `description ${i}` })),
      put(created.property, { archived: true }),
      put(created.property, { tags: ['busy'] }),
      put(created.property, { format: 'date' }),
    ]);

    expect(responses.map((r) => r.status)).toEqual(Array(7).fill(200));
    const final = await find(created.property);
    expect(final).toMatchObject({ archived: true, tags: ['busy'], format: 'date' });
    expect(final.description).toMatch(/^description [0-3]$/);
  });
});

describe('DELETE /attributes/{property}', () => {
  it('deletes the attribute and answers with its property', async () => {
    const created = await newAttribute();

    const response = await api.request('DELETE', path(created.property), { key: org.keys.admin });

    expect(response.status).toBe(200);
    expectShape(contract.deleteAttribute, response.body);
    expect(response.body).toEqual({ deletedProperty: created.property });
    expect(await find(created.property)).toBeUndefined();
  });

  it('answers 404 for an unknown property', async () => {
    const response = await api.request('DELETE', path('never_created'), { key: org.keys.admin });

    expect(response.status).toBe(404);
  });

  it("answers 404 for another organization's attribute and keeps it", async () => {
    const created = await newAttribute();

    const response = await api.request('DELETE', path(created.property), { key: other.keys.admin });

    expect(response.status).toBe(404);
    expect(await find(created.property)).toEqual(created);
  });

  it('answers 403 for a readonly key and keeps the attribute', async () => {
    const created = await newAttribute();

    const response = await api.request('DELETE', path(created.property), { key: org.keys.readonly });

    expect(response.status).toBe(403);
    expect(await find(created.property)).toEqual(created);
  });
});
