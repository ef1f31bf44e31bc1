import fc from 'fast-check';
import { advanceDueSchedules } from '../../functions/scheduler/advance-ramp-schedules';
import { ensureTable } from '../../infra/local/dynamodb';
import { tableName } from '../../shared/db/client';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { payloadFromScratch, withoutDate } from '../support/payload-oracle';

/**
 * Property: whatever the sequence of changes (features created, updated, toggled, archived,
 * deleted; saved groups and experiments changed; ramps started and advanced), the payload the
 * server serves from its warm cache equals the payload built from scratch from the features as
 * they are, and a 304 is answered only when the body did not change.
 */

// A table of its own: the advancer serves every organization in its table.
const sharedTable = process.env.TABLE_NAME;
process.env.TABLE_NAME = 'switchyard-test-payload-properties';

let api: Api;

beforeAll(async () => {
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName());
  api = await startApi();
});
afterAll(async () => {
  await api.close();
  process.env.TABLE_NAME = sharedTable;
});

const FEATURES = ['alpha', 'beta', 'gamma', 'delta'];
type RuleKind = 'none' | 'force' | 'group' | 'rollout' | 'experiment';

type Command =
  | { kind: 'create'; feature: string; enabled: boolean; rule: RuleKind }
  | { kind: 'update'; feature: string; value: number }
  | { kind: 'toggle'; feature: string; on: boolean }
  | { kind: 'archive'; feature: string; archived: boolean }
  | { kind: 'delete'; feature: string }
  | { kind: 'group'; values: string[] }
  | { kind: 'experiment'; trackingKey: string }
  | { kind: 'ramp'; feature: string };

const feature = fc.constantFrom(...FEATURES);
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), feature, enabled: fc.boolean(), rule: fc.constantFrom<RuleKind>('none', 'force', 'group', 'rollout', 'experiment') }),
  fc.record({ kind: fc.constant('update' as const), feature, value: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ kind: fc.constant('toggle' as const), feature, on: fc.boolean() }),
  fc.record({ kind: fc.constant('archive' as const), feature, archived: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), feature }),
  fc.record({ kind: fc.constant('group' as const), values: fc.array(fc.constantFrom('u1', 'u2', 'u3'), { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('experiment' as const), trackingKey: fc.constantFrom('exp-a', 'exp-b', 'exp-c') }),
  fc.record({ kind: fc.constant('ramp' as const), feature }),
);

interface World {
  org: TestOrg;
  key: string;
  groupId: string;
  experimentId: string;
  variations: string[];
}

async function call(world: World, method: string, path: string, body?: unknown) {
  const response = await api.request(method, `/api/v1${path}`, { key: world.org.keys.admin, body });
  // Refusals of the request itself (an id taken, an unknown feature) are fine; a lost internal race or a crash is not.
  if (response.status >= 500 || (response.status === 409 && response.body.code === 'conflict')) {
    throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response;
}

function rule(world: World, kind: RuleKind) {
  switch (kind) {
    case 'none':
      return [];
    case 'force':
      return [{ id: 'r1', type: 'force', value: '7', condition: '{"country":"NL"}' }];
    case 'group':
      return [{ id: 'r1', type: 'force', value: '8', savedGroupTargeting: [{ matchType: 'all', savedGroups: [world.groupId] }] }];
    case 'rollout':
      return [{ id: 'r1', type: 'rollout', value: '9', coverage: 0.2, hashAttribute: 'id' }];
    case 'experiment':
      return [
        {
          id: 'r1',
          type: 'experiment-ref',
          experimentId: world.experimentId,
          variations: world.variations.map((variationId, i) => ({ variationId, value: String(i + 1) })),
        },
      ];
  }
}

async function apply(world: World, change: Command) {
  switch (change.kind) {
    case 'create':
      return call(world, 'POST', '/features', {
        id: change.feature,
        valueType: 'number',
        defaultValue: '0',
        environments: { production: { enabled: change.enabled, rules: rule(world, change.rule) } },
      });
    case 'update':
      return call(world, 'POST', `/features/${change.feature}`, { defaultValue: String(change.value) });
    case 'toggle':
      return call(world, 'POST', `/features/${change.feature}/toggle`, { environments: { production: change.on } });
    case 'archive':
      return call(world, 'POST', `/features/${change.feature}`, { archived: change.archived });
    case 'delete':
      return call(world, 'DELETE', `/features/${change.feature}`);
    case 'group':
      return call(world, 'POST', `/saved-groups/${world.groupId}`, { values: change.values });
    case 'experiment':
      return call(world, 'POST', `/experiments/${world.experimentId}`, { trackingKey: change.trackingKey, bypassDuplicateKeyCheck: true });
    case 'ramp': {
      const created = await call(world, 'POST', '/ramp-schedules', {
        name: 'Ramp',
        featureId: change.feature,
        ruleId: 'r1',
        steps: [{ trigger: { type: 'interval', seconds: 1 }, actions: [{ patch: { coverage: 0.6 } }] }],
      });
      if (created.status !== 200) return created;
      const started = await call(world, 'POST', `/ramp-schedules/${created.body.rampSchedule.id}/actions/start`);
      if (started.status !== 200) return started;
      await advanceDueSchedules({ now: new Date(Date.parse(started.body.rampSchedule.nextProcessAt) + 1) });
      return started;
    }
  }
}

async function newWorld(): Promise<World> {
  const org = await createTestOrg('Payload properties');
  const admin = { key: org.keys.admin };
  const group = await api.request('POST', '/api/v1/saved-groups', { ...admin, body: { name: 'Beta', attributeKey: 'id', values: ['u1'] } });
  const experiment = await api.request('POST', '/api/v1/experiments', {
    ...admin,
    body: {
      trackingKey: 'exp-a',
      name: 'Checkout',
      status: 'running',
      hashAttribute: 'id',
      variations: [{ key: 'control', name: 'Control' }, { key: 'treatment', name: 'Treatment' }],
      phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 0.5, variationWeights: [0.5, 0.5] }],
    },
  });
  const connection = await api.request('POST', '/api/v1/sdk-connections', { ...admin, body: { name: 'Web', language: 'javascript', environment: 'production' } });
  if (experiment.status !== 200) throw new Error(`setup failed: ${JSON.stringify(experiment.body)}`);
  const world = {
    org,
    key: connection.body.sdkConnection.key,
    groupId: group.body.savedGroup.id,
    experimentId: experiment.body.experiment.id,
    variations: experiment.body.experiment.variations.map((variation: { variationId: string }) => variation.variationId),
  };
  // Two features start out naming the group and the experiment, so their changes matter from the first command.
  await apply(world, { kind: 'create', feature: 'gamma', enabled: true, rule: 'group' });
  await apply(world, { kind: 'create', feature: 'delta', enabled: true, rule: 'experiment' });
  return world;
}

it('serves what a from-scratch build gives after any sequence of changes, and 304 only for an unchanged body', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 8 }), async (commands) => {
      const world = await newWorld();
      let last = await api.request('GET', `/api/features/${world.key}`);
      for (const change of commands) {
        await apply(world, change);
        const revalidated = await api.request('GET', `/api/features/${world.key}`, { headers: { 'if-none-match': last.headers.get('etag')! } });
        const served = await api.request('GET', `/api/features/${world.key}`);

        expect(withoutDate(served.body)).toEqual(await payloadFromScratch(world.org.orgId, 'production'));
        if (revalidated.status === 304) {
          expect(served.body).toEqual(last.body);
          expect(served.headers.get('etag')).toBe(last.headers.get('etag'));
        } else {
          expect(revalidated.status).toBe(200);
          expect(revalidated.body).toEqual(served.body);
        }
        if (JSON.stringify(served.body) !== JSON.stringify(last.body)) expect(served.headers.get('etag')).not.toBe(last.headers.get('etag'));
        last = served;
      }
    }),
    { numRuns: 8 },
  );
}, 300_000);
