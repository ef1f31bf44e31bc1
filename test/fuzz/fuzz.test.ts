import { settle } from '../../bench/dynamo-cost';
import * as fc from 'fast-check';
import { MAX_BODY_BYTES } from '../../shared/api/endpoint';
import { MAX_BODY_DEPTH } from '../../shared/api/validation';
import { MAX_ATTRIBUTE_CHARS, MAX_REMOTE_EVAL_BODY_BYTES } from '../../shared/contracts/sdk-payload';
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
  Object.assign(ids, { memberId: org.admin.memberId, email: org.admin.email, memberToken: org.admin.token });
  for (const step of scenario.filter((candidate) => candidate.method !== 'DELETE')) {
    await settle(org.keys.admin, step, ids);
    const response = await api.request(step.method, step.path(ids), { key: step.key?.(ids) ?? org.keys.admin, body: step.body?.(ids) });
    if (response.status === 200) step.capture?.(response.body, ids);
  }
}, 180_000);
afterAll(() => api.close());

const deep = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), tie('node'), { maxKeys: 3 })),
})).node;

/** `value` under `depth` levels of objects and arrays, keyed by field names endpoints take. */
const nested = (depth: number, value: unknown, key = 'name'): unknown =>
  depth === 0 ? value : depth % 2 ? { [key]: nested(depth - 1, value, key) } : [nested(depth - 1, value, key)];
const fieldNames = fc.constantFrom('name', 'attributes', 'customFields', 'value', 'defaultValue', 'environments', 'phases', 'rules', 'force', 'data');
const slowPatterns = fc.constantFrom('^(a+)+$', '(x+x+)+y', '(a*)*b', '(?<=a)(b+)+');

/** A body, and whether every endpoint must refuse it (it cannot be stored, whatever the endpoint). */
type Body = ({ json: unknown } | { raw: string; contentType: string }) & { refused?: boolean };

/** Input that costs too much or cannot be stored: deeper than DynamoDB keeps, prototype keys, too large, catastrophic regular expressions. */
const hostileBodies: fc.Arbitrary<Body> = fc.oneof(
  fc.tuple(fc.integer({ min: MAX_BODY_DEPTH - 2, max: MAX_BODY_DEPTH + 10 }), fieldNames).map(([depth, key]) => ({ json: { [key]: nested(depth, 'x', key) }, refused: depth + 1 > MAX_BODY_DEPTH })),
  fc
    .tuple(fc.constantFrom('__proto__', 'constructor'), fieldNames, fc.jsonValue({ maxDepth: 1 }))
    .map(([bad, key, value]) => ({ raw: `{"${key}":{"${bad}":${JSON.stringify(value) ?? 'null'}},"${bad}":{"polluted":true}}`, contentType: 'application/json', refused: true })),
  fc.tuple(fieldNames, slowPatterns).map(([key, pattern]) => ({
    json: { [key]: 'x', condition: JSON.stringify({ email: { $regex: pattern } }), targeting: { coverage: 1, condition: JSON.stringify({ $or: [{ id: { $regexi: pattern } }] }) } },
  })),
  fc.constantFrom(MAX_REMOTE_EVAL_BODY_BYTES + 1, MAX_BODY_BYTES + 1).map((size) => ({ raw: `{"name":"${'x'.repeat(size)}"}`, contentType: 'application/json' })),
  fc.constant({ json: { attributes: { id: 'u', email: 'a'.repeat(MAX_ATTRIBUTE_CHARS + 1) } } }),
);

const bodies: fc.Arbitrary<Body> = fc.oneof(
  hostileBodies,
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
  fc.oneof(fc.string({ maxLength: 10 }), fc.integer().map(String), fc.constantFrom('-1', '1e9', 'NaN', 'true', '', 'x'.repeat(8_000), '__proto__', 'constructor')),
  { maxKeys: 3 },
);

const encode = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return 'lone-surrogate';
  }
};

type Path = Array<string | number>;

/** The path of every value inside a JSON value, the root's children first; objects and arrays too. */
function valuePaths(value: unknown, path: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    return [at, ...valuePaths(child, at)];
  });
}

/** A copy of `body` whose value at `path` is `change(old value)`. */
function changedAt(body: unknown, path: Path, change: (value: unknown) => unknown): unknown {
  if (!path.length) return change(body);
  const copy = (Array.isArray(body) ? [...body] : { ...(body as object) }) as Record<string | number, unknown>;
  copy[path[0]] = changedAt(copy[path[0]], path.slice(1), change);
  return copy;
}

const HOLE = '__hostile_key__';
/** Ways to spoil one value of a valid body so that it cannot be stored. */
const spoilers: Array<(body: unknown, path: Path) => Body> = [
  (body, path) => ({ json: changedAt(body, path, () => nested(MAX_BODY_DEPTH + 2, 'x')), refused: true }),
  (body, path) => ({ json: changedAt(body, path, () => ({ constructor: { polluted: true } })), refused: true }),
  (body, path) => ({
    raw: JSON.stringify(changedAt(body, path, () => ({ [HOLE]: { polluted: true } }))).replace(`"${HOLE}"`, '"__proto__"'),
    contentType: 'application/json',
    refused: true,
  }),
];

/** The scenario's valid request for an operation (its path and body, with the ids beforeAll made), if it has one with a body. */
function validRequest(operationId: string) {
  const step = scenario.find((candidate) => candidate.operationId === operationId && candidate.body);
  return step && { path: step.path(ids), body: step.body!(ids) };
}

/** A valid request of the operation with one of its values spoilt: these reach the handler and the table unless refused. */
const spoiltRequests = (operationId: string): fc.Arbitrary<{ body: Body; path?: string }> | undefined => {
  const valid = validRequest(operationId);
  const paths = valid && valuePaths(valid.body);
  if (!valid || !paths?.length) return undefined;
  return fc
    .tuple(fc.constantFrom(...spoilers), fc.constantFrom(...paths))
    .map(([spoil, path]) => ({ body: spoil(valid.body, path), path: valid.path }));
};

/** For every endpoint with a scenario body, each spoiler applied to its first and last values. */
const spoiltExamples = (operationId: string): Array<{ body: Body; path?: string }> => {
  const valid = validRequest(operationId);
  const paths = valid ? valuePaths(valid.body) : [];
  const chosen = paths.length > 1 ? [paths[0], paths[paths.length - 1]] : paths;
  return chosen.flatMap((path) => spoilers.map((spoil) => ({ body: spoil(valid!.body, path), path: valid!.path })));
};

/** One body of each hostile kind, sent to every endpoint with a real id in its path. */
const hostileBodyExamples = (): Body[] => [
    { json: { name: nested(MAX_BODY_DEPTH + 9, 'x') }, refused: true },
    { raw: '{"name":"x","__proto__":{"polluted":true}}', contentType: 'application/json', refused: true },
    { raw: '{"name":"x","attributes":{"constructor":{"polluted":true}}}', contentType: 'application/json', refused: true },
    { raw: `{"name":"${'x'.repeat(MAX_BODY_BYTES)}"}`, contentType: 'application/json', refused: true },
    { json: { name: 'x', condition: '{"email":{"$regex":"^(a+)+$"}}', attributes: { email: 'a'.repeat(MAX_ATTRIBUTE_CHARS + 1) } } },
];

type Request = { body: Body; path?: string };
type Example = [Request, string, Record<string, string>];

/** What every endpoint that takes a body is sent, whatever RUNS is: each hostile body, and its valid request spoilt. */
const examplesFor = (operationId: string): Example[] => {
  const realIds = Object.values(ids);
  return [
    ...hostileBodyExamples().map((body, i): Example => [{ body }, realIds[i % realIds.length] ?? 'x', {}]),
    ...spoiltExamples(operationId).map((request): Example => [request, 'x', {}]),
  ];
};

describe.each(routes.map((route) => [`${route.spec.method} ${fullPath(route.spec)}`, route] as const))('%s', (_name, route) => {
  it('answers generated input with a JSON 4xx or a success, never a 5xx, and a rejection changes nothing', async () => {
    const withBody = route.spec.method !== 'GET' && route.spec.method !== 'DELETE';
    const generic = bodies.map((body): Request => ({ body }));
    const spoilt = withBody ? spoiltRequests(route.spec.operationId) : undefined;
    await fc.assert(
      fc.asyncProperty(spoilt ? fc.oneof(generic, spoilt) : generic, pathValues(), queries, async ({ body, path: validPath }, pathValue, query) => {
        const search = new URLSearchParams(query).toString();
        const path = validPath ?? `${fullPath(route.spec).replace(/\{\w+\}/g, () => encode(pathValue))}${search ? `?${search}` : ''}`;
        const before = await organizationSnapshot(org.orgId);

        const response = await api.request(route.spec.method, path, {
          key: org.keys.admin,
          ...(withBody
            ? 'json' in body
              ? { rawBody: JSON.stringify(body.json) ?? 'null', headers: { 'content-type': 'application/json' } }
              : { rawBody: body.raw, headers: { 'content-type': body.contentType } }
            : {}),
        });

        expect(response.status).toBeLessThan(500);
        if (withBody && body.refused) expect(response.status).toBeGreaterThanOrEqual(400);
        if (response.status >= 400) {
          expect(typeof response.body?.message).toBe('string');
          expect(await organizationSnapshot(org.orgId)).toBe(before);
        }
      }),
      // Every endpoint that takes a body gets one of each hostile kind, whatever RUNS is; the random runs come on top.
      { numRuns: RUNS, examples: withBody ? examplesFor(route.spec.operationId) : [] },
    );
  }, 120_000);
});
