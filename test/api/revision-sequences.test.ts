import fc from 'fast-check';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { payloadFromScratch, withoutDate } from '../support/payload-oracle';

// Issue 23's property: any sequence of draft edits, publishes, discards, reverts, rebases and direct
// writes leaves the live feature equal to its newest published revision (replaying the published
// revisions in order ends there, each holding everything that went live), and the served payload
// equal to one built from scratch.

let api: Api;
let org: TestOrg;
let clientKey: string;

const v1 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1${path}`, { key: org.keys.admin, body });
const v2 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.keys.admin, body });

type Op =
  | { kind: 'draft'; value: string }
  | { kind: 'edit'; value: string }
  | { kind: 'rule'; value: string }
  | { kind: 'publish' }
  | { kind: 'discard' }
  | { kind: 'rebase' }
  | { kind: 'revert'; back: number }
  | { kind: 'direct'; value: string };

const value = fc.constantFrom('red', 'green', 'blue', 'gold');
const op: fc.Arbitrary<Op> = fc.oneof(
  value.map((v) => ({ kind: 'draft' as const, value: v })),
  value.map((v) => ({ kind: 'edit' as const, value: v })),
  value.map((v) => ({ kind: 'rule' as const, value: v })),
  fc.constant({ kind: 'publish' as const }),
  fc.constant({ kind: 'publish' as const }),
  fc.constant({ kind: 'discard' as const }),
  fc.constant({ kind: 'rebase' as const }),
  fc.integer({ min: 1, max: 4 }).map((back) => ({ kind: 'revert' as const, back })),
  value.map((v) => ({ kind: 'direct' as const, value: v })),
);

/** The newest open draft's number, or undefined. */
async function openDraft(id: string): Promise<number | undefined> {
  const latest = await v2('GET', `/features/${id}/revisions/latest`);
  return latest.status === 200 ? latest.body.revision.version : undefined;
}

/**
 * Applies one operation; refusals (a conflict, nothing to publish, nothing open) are part of the game, server errors are not.
 * Answers the live revision's number after an operation that put something live, else undefined.
 */
async function apply(id: string, step: Op): Promise<number | undefined> {
  const draft = step.kind === 'draft' || step.kind === 'direct' || step.kind === 'revert' ? undefined : await openDraft(id);
  let response: { status: number; body: any } | undefined;
  switch (step.kind) {
    case 'draft':
      response = await v2('PUT', `/features/${id}/revisions/new/default-value`, { defaultValue: step.value });
      break;
    case 'edit':
      if (draft) response = await v2('PUT', `/features/${id}/revisions/${draft}/default-value`, { defaultValue: step.value });
      break;
    case 'rule':
      if (draft) {
        response = await v2('POST', `/features/${id}/revisions/${draft}/rules`, {
          rule: { type: 'force', value: step.value, condition: `{"plan":"${step.value}"}`, environments: ['production'] },
        });
      }
      break;
    case 'publish':
      if (draft) response = await v2('POST', `/features/${id}/revisions/${draft}/publish`, {});
      break;
    case 'discard':
      if (draft) response = await v2('POST', `/features/${id}/revisions/${draft}/discard`, {});
      break;
    case 'rebase':
      if (draft)
        response = await v2('POST', `/features/${id}/revisions/${draft}/rebase`, {
          conflictResolutions: { defaultValue: 'overwrite', rules: 'overwrite' },
        });
      break;
    case 'revert': {
      const live = (await v1('GET', `/features/${id}`)).body.feature;
      const target = live.revision.version - step.back;
      if (target >= 1) response = await v2('POST', `/features/${id}/revisions/${target}/revert`, { strategy: 'publish' });
      break;
    }
    case 'direct':
      response = await v1('POST', `/features/${id}`, { defaultValue: step.value });
      break;
  }
  if (response && response.status >= 500) throw new Error(`${step.kind} answered ${response.status}: ${JSON.stringify(response.body)}`);
  if (response && response.status !== 200 && ![400, 404, 409].includes(response.status)) {
    throw new Error(`${step.kind} answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  if (response?.status === 200 && ['publish', 'revert', 'direct'].includes(step.kind))
    return (await v1('GET', `/features/${id}`)).body.feature.revision.version;
  return undefined;
}

/** The live feature's content that revisions hold: the default value and production's rules (id and value). */
const contentOf = (defaultValue: string, rules: Array<{ id: string; value: unknown }>) => ({
  defaultValue,
  rules: rules.map((rule) => [rule.id, rule.value]),
});

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Revision sequences');
  const connection = await v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' });
  clientKey = connection.body.sdkConnection.key;
});

afterAll(() => api.close());

let counter = 0;

it('leaves the live feature equal to its newest published revision, and the served payload equal to one built from scratch', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (steps) => {
      const id = `sequence-${++counter}`;
      const created = await v1('POST', '/features', {
        id,
        valueType: 'string',
        defaultValue: 'white',
        environments: { production: { enabled: true, rules: [] } },
      });
      expect(created.status).toBe(200);
      let lastLive = 1;
      for (const step of steps) lastLive = (await apply(id, step)) ?? lastLive;

      const live = (await v1('GET', `/features/${id}`)).body.feature;
      const published = (await v2('GET', `/features/${id}/revisions?status=published&limit=100`)).body.revisions;
      // The revision published last, which is not always the highest number: a draft keeps the number it was opened
      // with, so publishing draft 3 after revert 5 makes 3 live, as in GrowthBook.
      const newest = published.find((revision: { version: number }) => revision.version === lastLive);
      expect(live.revision.version).toBe(lastLive);
      expect(newest).toBeDefined();
      expect(
        contentOf(
          newest.defaultValue,
          newest.rules.filter((rule: any) => rule.allEnvironments || rule.environments?.includes('production')),
        ),
      ).toEqual(contentOf(live.defaultValue, live.environments.production.rules));
      const served = await api.request('GET', `/api/features/${clientKey}`);
      expect(withoutDate(served.body)).toEqual(await payloadFromScratch(org.orgId, 'production'));
    }),
    { numRuns: 12 },
  );
}, 120_000);
