import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';

// GrowthBook's API also reads application/x-www-form-urlencoded bodies (body-parser, extended mode):
// brackets nest, and every value arrives as a string.

let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
});
afterAll(() => api.close());

const form = (path: string, text: string) =>
  api.request('POST', `/api/v1${path}`, { key: org.keys.admin, rawBody: text, headers: { 'content-type': 'application/x-www-form-urlencoded' } });

describe('a form-encoded body', () => {
  it('creates a list saved group, with the values as a bracketed list', async () => {
    const response = await form('/saved-groups', 'name=Beta+testers&attributeKey=id&values[]=u1&values[]=u2');

    expect(response.status).toBe(200);
    expect(response.body.savedGroup).toMatchObject({ name: 'Beta testers', type: 'list', values: ['u1', 'u2'] });
  });

  it('creates a feature with nested fields', async () => {
    const response = await form('/features', 'id=form-flag&valueType=string&defaultValue=hello&tags[0]=web&tags[1]=api');

    expect(response.status).toBe(200);
    expect(response.body.feature).toMatchObject({ id: 'form-flag', defaultValue: 'hello', tags: ['web', 'api'] });
  });

  it('refuses a field that needs a boolean, since a form value is a string, as GrowthBook does', async () => {
    const response = await form('/features', 'id=form-flag-2&valueType=boolean&defaultValue=true&archived=true');

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[archived\]/);
  });
});
