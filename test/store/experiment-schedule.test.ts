import { fireDueBoundaries } from '../../functions/scheduler/fire-schedule-boundaries';
import { ensureTable } from '../../infra/local/dynamodb';
import { postExperiment } from '../../shared/contracts/experiments';
import { rescheduledExperiment, stagedStart } from '../../shared/domain/experiment-status';
import { newExperiment } from '../../shared/domain/experiments';
import { db, tableName } from '../../shared/db/client';
import { changeExperiment, fireExperimentStart } from '../../shared/store/experiment-schedule';
import { experiments } from '../../shared/store/experiments';
import { keys } from '../../shared/db/keys';
import { createOrganization } from '../../shared/store/organizations';
import { dueScheduleBoundaries } from '../../shared/store/schedule-boundaries';
import { readPayloadVersions } from '../../shared/payload/state';

// A table of its own: the due index spans organizations, so runs here must not fire other test
// files' boundaries (nor theirs ours), and their counts are only ours.
const sharedTable = process.env.TABLE_NAME;
process.env.TABLE_NAME = 'switchyard-test-experiment-schedule';
beforeAll(() => ensureTable(process.env.DYNAMODB_ENDPOINT!, tableName()));
afterAll(() => {
  process.env.TABLE_NAME = sharedTable;
});

/** Far enough ahead that the API's "must be in the future" holds whenever the test runs. */
const START = '2040-03-01T09:00:00.000Z';
const LATER = '2040-04-01T09:00:00.000Z';
const afterStart = new Date('2040-03-01T09:01:00.000Z');
let n = 0;

async function draft(orgId: string, startAt = START) {
  const body = postExperiment.body!.parse({
    trackingKey: `scheduled-${++n}`,
    name: `Scheduled ${n}`,
    variations: [{ key: '0', name: 'Control' }, { key: '1', name: 'Treatment' }],
    statusUpdateSchedule: { startAt },
  });
  return experiments.create(orgId, newExperiment(body, { owner: '' }, new Date().toISOString()));
}

/** A draft staged to start at START, as POST /start stages it. */
async function staged(orgId: string) {
  const experiment = await draft(orgId);
  return changeExperiment(orgId, experiment.id, (current) => stagedStart(current, START));
}

const boundaryOf = async (orgId: string, experimentId: string, at = START) =>
  (await db.get({ TableName: tableName(), Key: keys.experimentStartBoundary(orgId, at, experimentId), ConsistentRead: true })).Item;

const versionOf = async (orgId: string, id: string) => (await experiments.read(orgId, id))!.version;

describe('staged experiment starts', () => {
  it('puts a boundary on the due index when a start is staged', async () => {
    const { id: orgId } = await createOrganization('Staging org');

    const experiment = await staged(orgId);

    expect(await boundaryOf(orgId, experiment.id)).toBeDefined();
    expect(await dueScheduleBoundaries(afterStart, 1000)).toContainEqual({ orgId, at: START, experimentId: experiment.id });
  });

  it('starts the experiment once when two firings of its boundary run at the same time', async () => {
    const { id: orgId } = await createOrganization('Race org');
    const experiment = await staged(orgId);
    const versionBefore = await versionOf(orgId, experiment.id);
    const payloadBefore = await readPayloadVersions(orgId, 'production');
    const boundary = { orgId, at: START, experimentId: experiment.id };

    const outcomes = await Promise.all([fireExperimentStart(boundary, afterStart), fireExperimentStart(boundary, afterStart)]);

    expect([...outcomes].sort()).toEqual(['started', 'taken']);
    const stored = await experiments.get(orgId, experiment.id);
    expect(stored).toMatchObject({ status: 'running' });
    expect(stored.nextScheduledStatusUpdate).toBeUndefined();
    expect(stored.statusUpdateSchedule).toBeUndefined();
    expect(stored.phases.at(-1)).toMatchObject({ dateStarted: afterStart.toISOString(), dateEnded: '' });
    expect(await versionOf(orgId, experiment.id)).toBe(versionBefore + 1);
    expect(await boundaryOf(orgId, experiment.id)).toBeUndefined();
    // The payload version moved in the same transaction, so cached payloads are rebuilt with its rules.
    expect((await readPayloadVersions(orgId, 'production')).token).not.toBe(payloadBefore.token);
  });

  it('fires each due start once across two scheduler runs at the same time, and a later run finds nothing', async () => {
    const { id: orgId } = await createOrganization('Two schedulers org');
    const staged3 = await Promise.all([staged(orgId), staged(orgId), staged(orgId)]);
    const versionsBefore = await Promise.all(staged3.map((experiment) => versionOf(orgId, experiment.id)));
    // Earlier tests in this table may have left starts due too: every one must start exactly once.
    const due = (await dueScheduleBoundaries(afterStart, 1000)).filter((boundary) => boundary.experimentId);

    const [first, second] = await Promise.all([fireDueBoundaries({ now: afterStart }), fireDueBoundaries({ now: afterStart })]);
    const third = await fireDueBoundaries({ now: afterStart });

    expect(first.started + second.started).toBe(due.length);
    expect(first.failed + second.failed).toBe(0);
    expect(third).toEqual({ fired: 0, skipped: 0, failed: 0, started: 0 });
    for (const [i, experiment] of staged3.entries()) {
      expect((await experiments.get(orgId, experiment.id)).status).toBe('running');
      expect(await versionOf(orgId, experiment.id)).toBe(versionsBefore[i] + 1);
    }
  });

  it('does not start a staged experiment before its time', async () => {
    const { id: orgId } = await createOrganization('Early org');
    const experiment = await staged(orgId);

    const outcome = await fireExperimentStart({ orgId, at: START, experimentId: experiment.id }, new Date('2040-03-01T08:59:00.000Z'));

    expect(outcome).toBe('not-due');
    expect((await experiments.get(orgId, experiment.id)).status).toBe('draft');
    expect(await boundaryOf(orgId, experiment.id)).toBeDefined();
  });

  it('cancels the boundary when the schedule is cleared, so its time starts nothing', async () => {
    const { id: orgId } = await createOrganization('Cancel org');
    const experiment = await staged(orgId);

    await changeExperiment(orgId, experiment.id, (current) => rescheduledExperiment(current, {}, new Date().toISOString()));
    await fireDueBoundaries({ now: afterStart });

    expect(await boundaryOf(orgId, experiment.id)).toBeUndefined();
    expect(await experiments.get(orgId, experiment.id)).toMatchObject({ status: 'draft' });
  });

  it('moves the boundary when the start is rescheduled and staged again', async () => {
    const { id: orgId } = await createOrganization('Reschedule org');
    const experiment = await staged(orgId);

    const rescheduled = await changeExperiment(orgId, experiment.id, (current) => rescheduledExperiment(current, { startAt: LATER }, new Date().toISOString()));
    const unstagedBoundary = await boundaryOf(orgId, experiment.id, LATER);
    await changeExperiment(orgId, experiment.id, (current) => stagedStart(current, LATER));
    await fireDueBoundaries({ now: afterStart });
    const atOldTime = await experiments.get(orgId, experiment.id);

    expect(rescheduled.nextScheduledStatusUpdate).toBeUndefined();
    expect(unstagedBoundary).toBeUndefined();
    expect(await boundaryOf(orgId, experiment.id)).toBeUndefined();
    expect(await boundaryOf(orgId, experiment.id, LATER)).toBeDefined();
    expect(atOldTime.status).toBe('draft');
    await fireDueBoundaries({ now: new Date(LATER) });
    expect((await experiments.get(orgId, experiment.id)).status).toBe('running');
  });

  it('cancels the boundary when the experiment is archived or started by an update', async () => {
    const { id: orgId } = await createOrganization('Update org');
    const [archived, running] = await Promise.all([staged(orgId), staged(orgId)]);

    await changeExperiment(orgId, archived.id, (current) => ({ ...current, archived: true }));
    await changeExperiment(orgId, running.id, ({ statusUpdateSchedule: _s, ...current }) => ({ ...current, status: 'running' }));

    expect(await boundaryOf(orgId, archived.id)).toBeUndefined();
    expect(await boundaryOf(orgId, running.id)).toBeUndefined();
    expect((await experiments.get(orgId, archived.id)).nextScheduledStatusUpdate).toBeUndefined();
  });
});
