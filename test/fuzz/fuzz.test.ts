import * as fc from 'fast-check';
import { scenario, scenarioDataSourceId, type Ids } from '../../bench/scenarios';
import { routes } from '../../shared/contracts/registry';
import { fullPath } from '../../shared/contracts/spec';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { organizationSnapshot } from '../support/snapshot';

/**
 * Sends generated garbage to every endpoint of the registry and checks the error contract:
 * never a 5xx, always a JSON error with a message, and a rejected request changes nothing.
 * `FUZZ_RUNS` raises the runs per endpoint (`npm run fuzz` does).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);

let api: Api;
let org: TestOrg;
/** Real ids of one of everything, so generated input also reaches updates of existing resources. */
const ids: Ids = {};

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Fuzz', { dataSources: [scenarioDataSourceId] });
  Object.assign(ids, { memberId: org.admin.memberId, email: org.admin.email });
  for (const step of scenario.filter((candidate) => candidate.method !== 'DELETE')) {
    const response = await api.request(step.method, step.path(ids), { key: org.keys.admin, body: step.body?.(ids) });
    if (response.status === 200) step.capture?.(response.body, ids);
  }
}, 60_000);
afterAll(() => api.close());

const deep = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), tie('node'), { maxKeys: 3 })),
})).node;

const bodies = fc.oneof(
  fc.anything({ maxDepth: 3 }).map((value) => ({ json: value })),
  fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 2 })).map((value) => ({ json: value })),
  deep.map((value) => ({ json: value })),
  fc.string({ unit: 'grapheme', maxLength: 50 }).map((text) => ({ raw: text, contentType: 'application/json' })),
  fc.constant({ json: { name: 'x'.repeat(100_000), id: 'y'.repeat(5_000) } }),
  fc.constant({ raw: '{"name": "unterminated', contentType: 'application/json' }),
  fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data', 'application/x-www-form-urlencoded').map((contentType) => ({
    raw: 'name=x&id=1',
    contentType,
  })),
  fc.constant({ raw: '\u0000\u0001\uffff', contentType: 'application/json' }),
);

/** Path values: real ids (once beforeAll has made them), garbage, and tricky strings. */
const pathValues = () =>
  fc.oneof(
    fc.constantFrom(...Object.values(ids)),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    fc.constantFrom('..', '%', 'prj_missing', 'null', 'undefined', '0', ' ', 'a'.repeat(600), '💥', '{id}'),
  );

const queries = fc.dictionary(
  fc.constantFrom('limit', 'offset', 'projectId', 'clientKey', 'skipPagination', 'datasourceId', 'withRevisions', 'x'),
  fc.oneof(fc.string({ maxLength: 10 }), fc.integer().map(String), fc.constantFrom('-1', '1e9', 'NaN', 'true', '')),
  { maxKeys: 3 },
);

const encode = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return 'lone-surrogate';
  }
};

describe.each(routes.map((route) => [`${route.spec.method} ${fullPath(route.spec)}`, route] as const))('%s', (_name, route) => {
  it('answers generated input with a JSON 4xx or a success, never a 5xx, and a rejection changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, pathValues(), queries, async (body, pathValue, query) => {
        const path = fullPath(route.spec).replace(/\{\w+\}/g, () => encode(pathValue));
        const search = new URLSearchParams(query).toString();
        const before = await organizationSnapshot(org.orgId);
        const withBody = route.spec.method !== 'GET' && route.spec.method !== 'DELETE';

        const response = await api.request(route.spec.method, `${path}${search ? `?${search}` : ''}`, {
          key: org.keys.admin,
          ...(withBody
            ? 'json' in body
              ? { rawBody: JSON.stringify(body.json) ?? 'null', headers: { 'content-type': 'application/json' } }
              : { rawBody: body.raw, headers: { 'content-type': body.contentType } }
            : {}),
        });

        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) {
          expect(typeof response.body?.message).toBe('string');
          expect(await organizationSnapshot(org.orgId)).toBe(before);
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
