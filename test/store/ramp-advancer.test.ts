import { advanceDueSchedules, planBatches, type AdvanceResult } from '../../functions/scheduler/advance-ramp-schedules';
import { ensureTable, startDynamoLocal, type LocalDynamo } from '../../infra/local/dynamodb';
import { ruleInput } from '../../shared/contracts/features';
import { createRampScheduleBody } from '../../shared/contracts/ramp-schedules';
import { newFeature } from '../../shared/domain/features';
import { newRampSchedule } from '../../shared/domain/ramp-definition';
import { db, tableName } from '../../shared/db/client';
import { writeFeatureChanges, featureRevisions, features } from '../../shared/store/features';
import { newId } from '../../shared/ids';
import { keys } from '../../shared/db/keys';
import { createOrganization } from '../../shared/store/organizations';
import { NotFoundError } from '../../shared/errors';
import {
  actOnRampSchedule,
  dueRampSchedules,
  insertRampSchedule,
  rampSchedules,
  readRampWorld,
  readRampWorlds,
} from '../../shared/store/ramp-schedules';

// A table of its own: the due index spans organizations, and other test files' schedules must not
// be advanced by these runs (nor theirs by ours). And a DynamoDB Local of its own: these runs write
// thousands of transactions, and late in a full test run the shared instance, holding every suite's
// items and streams, took over 300 s for what takes 15 s on a fresh one.
const shared = { table: process.env.TABLE_NAME, endpoint: process.env.DYNAMODB_ENDPOINT };
let own: LocalDynamo;
process.env.TABLE_NAME = 'switchyard-test-ramp-advancer';
beforeAll(async () => {
  own = await startDynamoLocal();
  process.env.DYNAMODB_ENDPOINT = own.endpoint;
  await ensureTable(own.endpoint, tableName());
}, 60_000);
afterAll(() => {
  process.env.TABLE_NAME = shared.table;
  process.env.DYNAMODB_ENDPOINT = shared.endpoint;
  own?.stop();
});

jest.setTimeout(180_000);

/** Every schedule here starts itself at T and then steps every minute: 25% → 50% → 100%. */
const T = new Date('2031-06-01T12:00:00.000Z');
const after = (seconds: number) => new Date(T.getTime() + seconds * 1000);
const steps = [0.25, 0.5, 1].map((coverage) => ({ trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage } }] }));

interface Seeded {
  orgId: string;
  featureId: string;
  scheduleId: string;
}

/** One feature with a 0% rollout rule `fr_ramp` in production, and a ready schedule on it starting at T. */
async function seedOne(orgId: string, n: number): Promise<Seeded> {
  const featureId = `ramped-${n}`;
  const content = await newFeature(
    {
      id: featureId,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: {
        production: { enabled: true, rules: [ruleInput.parse({ id: 'fr_ramp', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' })] },
      },
    },
    { environments: ['production', 'dev'], owner: { owner: '' } },
  );
  const [feature] = await writeFeatureChanges(orgId, [{ next: content, author: { by: 'test', comment: 'Created' } }]);
  const body = createRampScheduleBody.parse({ name: `Ramp ${n}`, featureId, ruleId: 'fr_ramp', steps, startDate: T.toISOString() });
  const schedule = newRampSchedule(body, { id: newId('rs_'), targetId: newId('rt_'), organization: orgId, feature });
  await insertRampSchedule(orgId, schedule);
  return { orgId, featureId, scheduleId: schedule.id };
}

/** `perOrg` schedules in each of `orgs` new organizations; organizations are seeded side by side. */
async function seed(orgs: number, perOrg: number): Promise<Seeded[]> {
  const lanes = await Promise.all(
    Array.from({ length: orgs }, async () => {
      const { id: orgId } = await createOrganization('Ramp advancer test');
      const seeded: Seeded[] = [];
      for (let n = 0; n < perOrg; n++) seeded.push(await seedOne(orgId, n));
      return seeded;
    }),
  );
  return lanes.flat();
}

/** Runs `count` advancers at the same time and adds up what they report. */
async function runAdvancers(count: number, now: Date): Promise<AdvanceResult> {
  const results = await Promise.all(Array.from({ length: count }, () => advanceDueSchedules({ now, concurrency: 8 })));
  return results.reduce((sum, result) => ({
    advanced: sum.advanced + result.advanced,
    skipped: sum.skipped + result.skipped,
    failed: sum.failed + result.failed,
  }));
}

const coverageIn = (rules: Record<string, Array<{ id: string; coverage?: number }>>) =>
  rules.production.find((rule) => rule.id === 'fr_ramp')?.coverage;

async function stateOf({ orgId, featureId, scheduleId }: Seeded) {
  const [revisions, feature, schedule] = await Promise.all([
    featureRevisions(orgId, featureId),
    features.get(orgId, featureId),
    rampSchedules.get(orgId, scheduleId),
  ]);
  return {
    versions: revisions.map((revision) => revision.version),
    comments: revisions.map((revision) => revision.comment),
    coverages: revisions.map((revision) => coverageIn(revision.rules)),
    coverage: coverageIn({ production: feature.environments.production.rules }),
    status: schedule.status,
    step: schedule.currentStepIndex,
  };
}

describe('advancers running at the same time over hundreds of due schedules', () => {
  let seeded: Seeded[];

  beforeAll(async () => {
    seeded = await seed(8, 25);
  });

  it('apply every step exactly once and skip none', async () => {
    const rounds: AdvanceResult[] = [];
    const reruns: AdvanceResult[] = [];

    // Start, next step, then (an hour late) the last step and the end folded into one transition.
    for (const now of [after(1), after(61), after(3600)]) {
      rounds.push(await runAdvancers(3, now));
      reruns.push(await advanceDueSchedules({ now }));
    }

    // Whatever was due at a round's time was done by that round, except a schedule whose advance kept losing races
    // (on a loaded machine: three advancers on the same shard versions): that one wrote nothing, counts as failed,
    // and the next run moves it on. Nothing is ever done twice or skipped: every schedule ends as planned below.
    for (const [i, result] of rounds.entries()) {
      expect(result.advanced + reruns[i].advanced).toBe(200);
      expect(reruns[i]).toEqual({ advanced: result.failed, skipped: 0, failed: 0 });
    }
    const states = await Promise.all(seeded.map(stateOf));
    for (const state of states) {
      expect(state).toEqual({
        versions: [1, 2, 3, 4],
        comments: ['Created', 'Ramp step 1 of 3', 'Ramp step 2 of 3', 'Ramp completed'],
        coverages: [0, 0.25, 0.5, 1],
        coverage: 1,
        status: 'completed',
        step: 2,
      });
    }
    expect(await dueRampSchedules(after(365 * 24 * 3600), 1000)).toEqual([]);
  });
});

describe('an advance that fails midway', () => {
  it('writes nothing, waits, and the retry applies the step once', async () => {
    const [one] = await seed(1, 1);
    let crashes = 1;
    const crashOnce = () => {
      if (crashes-- > 0) throw new Error('killed after the read');
    };

    const crashed = await advanceDueSchedules({ now: after(1), afterRead: crashOnce });
    const tooEarly = await advanceDueSchedules({ now: after(30) });
    const stateBetween = await stateOf(one);
    const retried = await advanceDueSchedules({ now: after(62) });

    expect(crashed).toEqual({ advanced: 0, skipped: 0, failed: 1 });
    expect(tooEarly).toEqual({ advanced: 0, skipped: 0, failed: 0 });
    expect(stateBetween).toMatchObject({ versions: [1], status: 'ready', step: -1 });
    expect(retried).toEqual({ advanced: 1, skipped: 0, failed: 0 });
    // Started late at 62 s: step 0 only, entered then; no step applied twice or skipped.
    expect(await stateOf(one)).toMatchObject({ versions: [1, 2], coverages: [0, 0.25], status: 'running', step: 0 });
    expect(await rampSchedules.get(one.orgId, one.scheduleId)).toMatchObject({ failures: 0, retryAt: null });
  });

  it("never records its failure over another advancer's success", async () => {
    const [one] = await seed(1, 1);
    let release: () => void = () => {};
    let reached: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const failingHasRead = new Promise<void>((resolve) => (reached = resolve));

    const failing = advanceDueSchedules({
      now: after(1),
      afterRead: async () => {
        reached();
        await held;
        throw new Error('killed after the read');
      },
    });
    // The other advancer starts only once the failing one holds its read, so both saw the schedule due.
    await failingHasRead;
    const succeeding = await advanceDueSchedules({ now: after(1) });
    release();

    expect(succeeding.advanced).toBe(1);
    expect((await failing).failed).toBe(1);
    expect(await stateOf(one)).toMatchObject({ versions: [1, 2], status: 'running', step: 0 });
    expect(await rampSchedules.get(one.orgId, one.scheduleId)).toMatchObject({ failures: 0, retryAt: null, pauseReason: null });
  });

  it('pauses a schedule that keeps failing, with the reason, instead of retrying it on every run', async () => {
    const [one] = await seed(1, 1);
    // The rule goes away: starting can never work.
    await features.update(one.orgId, one.featureId, (current) => ({
      ...current,
      environments: { ...current.environments, production: { ...current.environments.production, rules: [] } },
    }));
    const policy = { maxFailures: 3, retryDelayMs: 10_000 };
    const results: AdvanceResult[] = [];

    // Runs every second for a minute: only the runs after each delay try again.
    for (let second = 1; second <= 60; second++) results.push(await advanceDueSchedules({ now: after(second), failurePolicy: policy }));

    const failedAt = results.flatMap((result, i) => (result.failed ? [i + 1] : []));
    expect(failedAt).toEqual([1, 11, 31]);
    const schedule = await rampSchedules.get(one.orgId, one.scheduleId);
    expect(schedule).toMatchObject({ status: 'paused', pauseReason: expect.stringMatching(/no longer exists/) });
    expect(await stateOf(one)).toMatchObject({ versions: [1] });
  });
});

describe('the due index', () => {
  const dueKeysOf = async ({ orgId, scheduleId }: Seeded) => {
    const { Item } = await db.get({ TableName: tableName(), Key: keys.entity(orgId, 'RAMP_SCHEDULE', scheduleId), ConsistentRead: true });
    return { GSI2PK: Item!.GSI2PK, GSI2SK: Item!.GSI2SK };
  };

  it('holds a schedule exactly while it has work pending, sorted by when it is due', async () => {
    const [one] = await seed(1, 1);
    const actor = { by: 'test', publishes: false, assertAllowed: () => {}, assertMayPublish: () => {} };

    const ready = await dueKeysOf(one);
    await advanceDueSchedules({ now: after(1) });
    const running = await dueKeysOf(one);
    const paused = await actOnRampSchedule(one.orgId, one.scheduleId, actor, { type: 'pause' }).then(() => dueKeysOf(one));

    expect(ready).toEqual({ GSI2PK: 'RAMP_DUE', GSI2SK: T.toISOString() });
    expect(running).toEqual({ GSI2PK: 'RAMP_DUE', GSI2SK: after(61).toISOString() });
    expect(paused).toEqual({ GSI2PK: undefined, GSI2SK: undefined });
  });
});

// Last in the file: their schedules stay due for their next steps.
describe('batches of one organization', () => {
  it('apply every step once when a write lands on one of their features between the read and the commit', async () => {
    const seeded = await seed(1, 30);
    const target = seeded[7];
    let edited = false;
    const editOnce = async (schedule: { id: string }) => {
      if (edited || schedule.id !== target.scheduleId) return;
      edited = true;
      await features.update(target.orgId, target.featureId, (current) => ({ ...current, description: 'edited meanwhile' }));
    };

    const result = await advanceDueSchedules({ now: after(1), batchSize: 30, afterRead: editOnce });
    const states = await Promise.all(seeded.map(stateOf));

    expect(edited).toBe(true);
    expect(result).toEqual({ advanced: 30, skipped: 0, failed: 0 });
    for (const state of states) expect(state).toMatchObject({ versions: [1, 2], coverages: [0, 0.25], coverage: 0.25, status: 'running', step: 0 });
    expect((await features.get(target.orgId, target.featureId)).description).toBe('edited meanwhile');
  });

  it('let one bad schedule fail alone while the rest of its batch advances', async () => {
    const seeded = await seed(1, 12);
    const bad = seeded[5];
    await features.update(bad.orgId, bad.featureId, (current) => ({
      ...current,
      environments: { ...current.environments, production: { ...current.environments.production, rules: [] } },
    }));

    const result = await advanceDueSchedules({ now: after(1), batchSize: 12 });

    expect(result).toEqual({ advanced: 11, skipped: 0, failed: 1 });
    const states = await Promise.all(seeded.filter((one) => one !== bad).map(stateOf));
    for (const state of states) expect(state).toMatchObject({ versions: [1, 2], status: 'running', step: 0 });
    expect(await rampSchedules.get(bad.orgId, bad.scheduleId)).toMatchObject({ failures: 1, status: 'ready' });
    expect(await stateOf(bad)).toMatchObject({ versions: [1] });
  });
});

/** Returns a hook per name that waits until every name's hook was called: advancers wait for each other with it. */
function meetingPoint(names: string[]) {
  const arrived = new Set<string>();
  let open!: () => void;
  const allThere = new Promise<void>((resolve) => (open = resolve));
  return (name: string) => async () => {
    arrived.add(name);
    if (names.every((one) => arrived.has(one))) open();
    await allThere;
  };
}

describe('advancers whose batches partly overlap', () => {
  it('apply every step exactly once: a batch that loses splits, and its other schedules still advance', async () => {
    const seeded = await seed(2, 30);
    // Both advancers read a batch holding this schedule (the wide one with 23 others, the narrow
    // one with 6 of those), and neither writes before both have.
    const [first] = planBatches(await dueRampSchedules(after(1), 1000), 7);
    const meet = meetingPoint(['wide', 'narrow']);
    const arrive = (name: string) => {
      const hook = meet(name);
      return async (schedule: { id: string }) => (schedule.id === first.refs[0].id ? hook() : undefined);
    };

    const [wide, narrow] = await Promise.all([
      advanceDueSchedules({ now: after(1), batchSize: 24, afterRead: arrive('wide') }),
      // Smaller batches, cut elsewhere, and only the first 40 due schedules.
      advanceDueSchedules({ now: after(1), batchSize: 7, limit: 40, afterRead: arrive('narrow') }),
    ]);

    expect(wide.advanced + narrow.advanced).toBe(60);
    expect(wide.failed + narrow.failed).toBe(0);
    // The batch that lost found the other's schedules advanced when it split and read again.
    expect(wide.skipped + narrow.skipped).toBeGreaterThanOrEqual(7);
    expect(wide.advanced).toBeGreaterThan(0);
    expect(narrow.advanced).toBeGreaterThan(0);
    expect(await advanceDueSchedules({ now: after(1) })).toEqual({ advanced: 0, skipped: 0, failed: 0 });
    const states = await Promise.all(seeded.map(stateOf));
    for (const state of states) expect(state).toMatchObject({ versions: [1, 2], coverages: [0, 0.25], coverage: 0.25, status: 'running', step: 0 });
  });
});

describe('reading a batch', () => {
  it('finds each schedule with its own feature, reads a feature the index no longer names, and marks a missing schedule', async () => {
    const [first, second] = await seed(1, 2);
    const { worlds, parents } = await readRampWorlds(first.orgId, [
      { id: first.scheduleId, expectedFeatureId: first.featureId },
      // The index named another feature: the schedule's own is read in a second round.
      { id: second.scheduleId, expectedFeatureId: first.featureId },
      { id: 'rs_missing', expectedFeatureId: first.featureId },
    ]);

    expect(worlds[0]).toMatchObject({ schedule: { entity: { id: first.scheduleId } }, feature: { entity: { id: first.featureId } } });
    expect(worlds[1]).toMatchObject({ schedule: { entity: { id: second.scheduleId } }, feature: { entity: { id: second.featureId } } });
    expect(worlds[2]).toBeInstanceOf(NotFoundError);
    // Production and dev, neither a child of the other.
    expect(parents).toEqual(new Map());
    // The same as reading each schedule on its own.
    expect(worlds[1]).toEqual(await readRampWorld(second.orgId, second.scheduleId));
  });
});
