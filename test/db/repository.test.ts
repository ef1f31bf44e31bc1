import { ConflictError } from '../../shared/errors';
import { dynamoMeter } from '../../shared/db/client';
import { assertReferences, getItems, repository } from '../../shared/db/repository';
import { newId } from '../../shared/ids';
import { keys } from '../../shared/db/keys';

interface Thing {
  id: string;
  dateCreated: string;
  dateUpdated: string;
  name: string;
  project?: string;
}

const things = repository<Thing>({
  type: 'ARCHETYPE',
  label: 'Thing',
  listTags: (thing) => (thing.project ? [`project:${thing.project}`] : []),
});

const orgId = () => newId('org_test_');

describe('the versioned repository', () => {
  it('creates, reads, updates and deletes an entity, setting dates and hiding storage attributes', async () => {
    const org = orgId();
    const created = await things.create(org, { id: 'a', name: 'first' });

    const updated = await things.update(org, 'a', (current) => ({ ...current, name: 'second' }));
    const read = await things.get(org, 'a');
    const removed = await things.remove(org, 'a');

    expect(created).toEqual({ id: 'a', name: 'first', dateCreated: expect.any(String), dateUpdated: created.dateCreated });
    expect(updated).toMatchObject({ id: 'a', name: 'second', dateCreated: created.dateCreated });
    expect(read).toEqual(updated);
    expect(removed).toEqual(updated);
    expect(await things.find(org, 'a')).toBeUndefined();
  });

  it('refuses a second create of the same id with 409 already_exists', async () => {
    const org = orgId();
    await things.create(org, { id: 'dup', name: 'one' });

    await expect(things.create(org, { id: 'dup', name: 'two' })).rejects.toMatchObject({ name: 'ConflictError', code: 'already_exists' });
    expect((await things.get(org, 'dup')).name).toBe('one');
  });

  it('lets exactly one of many concurrent creates of the same id win', async () => {
    const org = orgId();

    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => things.create(org, { id: 'race', name: `${i}` })));

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(
      Array(7).fill('already_exists'),
    );
  });

  it('answers 404 for get, update and remove of a missing id', async () => {
    const org = orgId();

    await expect(things.get(org, 'none')).rejects.toMatchObject({ name: 'NotFoundError' });
    await expect(things.update(org, 'none', (t) => t)).rejects.toMatchObject({ name: 'NotFoundError' });
    await expect(things.remove(org, 'none')).rejects.toMatchObject({ name: 'NotFoundError' });
    await expect(things.remove(org, 'none', () => undefined)).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  it('keeps organizations apart', async () => {
    const [a, b] = [orgId(), orgId()];
    await things.create(a, { id: 'same', name: 'of a' });

    expect(await things.find(b, 'same')).toBeUndefined();
    expect((await things.list(b, { limit: 10, offset: 0 })).total).toBe(0);
    expect(await things.all(b)).toEqual([]);
  });

  it('re-applies a partial update that lost a race, so no write is lost', async () => {
    const org = orgId();
    await things.create(org, { id: 'counter', name: '' });

    await Promise.all(
      Array.from({ length: 10 }, (_, i) => things.update(org, 'counter', (current) => ({ ...current, name: `${current.name}${i},` }))),
    );

    const names = (await things.get(org, 'counter')).name.split(',').filter(Boolean);
    expect(names.sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('does not delete when the check refuses', async () => {
    const org = orgId();
    await things.create(org, { id: 'kept', name: 'x' });

    await expect(
      things.remove(org, 'kept', () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await things.find(org, 'kept')).toBeDefined();
  });

  it('pages in creation order and filters by list tags', async () => {
    const org = orgId();
    for (let i = 0; i < 7; i++) {
      await things.create(org, { id: `t${i}`, name: `${i}`, project: i % 2 ? 'odd' : 'even' });
    }

    const page = await things.list(org, { limit: 3, offset: 2 });
    const odd = await things.list(org, { limit: 10, offset: 0, tags: ['project:odd'] });

    expect(page.total).toBe(7);
    expect(page.items.map((t) => t.id)).toEqual(['t2', 't3', 't4']);
    expect(odd.items.map((t) => t.id)).toEqual(['t1', 't3', 't5']);
    expect(odd.total).toBe(3);
  });

  it('waits for an asynchronous check and does not delete when it refuses', async () => {
    const org = orgId();
    await things.create(org, { id: 'kept', name: 'x' });
    await things.create(org, { id: 'gone', name: 'y' });

    const refused = things.remove(org, 'kept', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error('refused later');
    });
    await things.remove(org, 'gone', async () => undefined);

    await expect(refused).rejects.toThrow('refused later');
    expect(await things.find(org, 'kept')).toBeDefined();
    expect(await things.find(org, 'gone')).toBeUndefined();
  });

  it('reads many entities with their versions in one round trip per hundred ids', async () => {
    const org = orgId();
    const ids = Array.from({ length: 150 }, (_, i) => `v${i}`);
    await Promise.all(ids.map((id) => things.create(org, { id, name: id })));
    await things.update(org, 'v7', (current) => ({ ...current, name: 'changed' }));

    dynamoMeter.reset();
    const found = await things.readMany(org, ['v7', 'missing', ...ids, 'v7']);
    const used = dynamoMeter.snapshot();

    expect(used.calls).toBe(2);
    expect(found).toHaveLength(150);
    expect(found[0]).toEqual({ entity: expect.objectContaining({ id: 'v7', name: 'changed' }), version: 2 });
    expect(found[1]).toEqual({ entity: expect.objectContaining({ id: 'v0', name: 'v0' }), version: 1 });
    expect(found.some((item) => 'PK' in item.entity)).toBe(false);
  });

  it('reads items of several types in one BatchGet, aligned with the keys asked', async () => {
    const org = orgId();
    await things.create(org, { id: 'x', name: 'one' });
    const thingKey = keys.entity(org, 'ARCHETYPE', 'x');

    dynamoMeter.reset();
    const items = await getItems([thingKey, keys.entity(org, 'SEGMENT', 'none'), keys.organization(org), thingKey]);

    expect(dynamoMeter.snapshot().calls).toBe(1);
    expect(items.map((item) => item?.name)).toEqual(['one', undefined, undefined, 'one']);
    expect(items[0]).toMatchObject({ ...thingKey, version: 1 });
  });

  it('lists every entity with the given tags, past any page size, in creation order', async () => {
    const org = orgId();
    for (let i = 0; i < 12; i++) {
      await things.create(org, { id: `a${String(i).padStart(2, '0')}`, name: `${i}`, project: i % 3 ? 'rest' : 'third' });
    }

    const third = await things.allTagged(org, ['project:third']);
    const none = await things.allTagged(org, ['project:none']);

    expect(third.map((thing) => thing.id)).toEqual(['a00', 'a03', 'a06', 'a09']);
    expect(none).toEqual([]);
  });

  it('answers 400 naming the field of the first reference to nothing', async () => {
    const org = orgId();
    await things.create(org, { id: 'real', name: 'x' });

    const missing = assertReferences(org, things, [
      { field: 'first', id: 'real' },
      { field: 'second.0', id: 'ghost' },
      { field: 'third', id: 'phantom' },
    ]);

    await expect(missing).rejects.toMatchObject({ name: 'InvalidInputError', message: 'Request body: [second.0] no thing has the id ghost' });
    await expect(assertReferences(org, things, [{ field: 'first', id: 'real' }])).resolves.toBeUndefined();
  });

  it('refuses an entity too large for DynamoDB with 400', async () => {
    await expect(things.create(orgId(), { id: 'big', name: 'x'.repeat(400 * 1024) })).rejects.toMatchObject({ name: 'InvalidInputError' });
  });

  it('reads one item with one round trip and writes one with one', async () => {
    const org = orgId();
    await things.create(org, { id: 'm', name: 'x' });

    dynamoMeter.reset();
    await things.get(org, 'm');
    const read = dynamoMeter.snapshot();
    dynamoMeter.reset();
    await things.create(org, { id: 'n', name: 'y' });
    const write = dynamoMeter.snapshot();

    expect(read).toEqual({ calls: 1, readUnits: 1, writeUnits: 0 });
    expect(write.calls).toBe(1);
    expect(write).toEqual({ calls: 1, readUnits: 0, writeUnits: 2 }); // the item and its list-index entry
  });

  it('turns DynamoDB\'s refusal of a value nested past 32 levels into invalid input, and stores nothing', async () => {
    const org = orgId();
    const nest = (depth: number): unknown => (depth === 0 ? 'x' : { a: nest(depth - 1) });
    await things.create(org, { id: 'deep', name: 'first' });

    const created = things.create(org, { id: 'deeper', name: 'x', extra: nest(33) } as Parameters<typeof things.create>[1]);
    const updated = things.update(org, 'deep', (current) => ({ ...current, extra: [nest(32)] }) as Thing);

    await expect(created).rejects.toMatchObject({ name: 'InvalidInputError', message: expect.stringMatching(/nested too deeply.*32 levels/) });
    await expect(updated).rejects.toMatchObject({ name: 'InvalidInputError' });
    expect(await things.find(org, 'deeper')).toBeUndefined();
    expect(await things.get(org, 'deep')).toMatchObject({ name: 'first' });
    expect(await things.get(org, 'deep')).not.toHaveProperty('extra');
  });
});

describe('a repository with a touch', () => {
  const touchKey = (org: string) => ({ PK: keys.organization(org).PK, SK: 'TOUCHED' });
  const touched = repository<Thing>({
    type: 'DIMENSION',
    label: 'Touched thing',
    touch: (org) => [
      {
        op: {
          Update: {
            TableName: process.env.TABLE_NAME ?? 'switchyard',
            Key: touchKey(org),
            UpdateExpression: 'ADD #version :one',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
        onConditionFailed: () => new ConflictError('conflict', 'not conditional'),
      },
    ],
  });
  const touches = async (org: string) => ((await getItems([touchKey(org)]))[0]?.version as number | undefined) ?? 0;

  it('writes the touch in the same transaction as every create, update and delete, each one round trip', async () => {
    const org = orgId();
    const calls: number[] = [];
    const counted = async (action: () => Promise<unknown>) => {
      dynamoMeter.reset();
      await action();
      calls.push(dynamoMeter.calls);
    };

    await counted(() => touched.create(org, { id: 'a', name: 'first' }));
    await counted(() => touched.update(org, 'a', (current) => ({ ...current, name: 'second' })));
    await counted(() => touched.remove(org, 'a'));

    expect(calls).toEqual([1, 2, 1]); // the update reads first
    expect(await touches(org)).toBe(3);
    expect(await touched.find(org, 'a')).toBeUndefined();
  });

  it('answers 404 for a delete of nothing and 409 for a taken id, and then touches nothing', async () => {
    const org = orgId();
    await touched.create(org, { id: 'taken', name: 'one' });

    await expect(touched.remove(org, 'missing')).rejects.toMatchObject({ name: 'NotFoundError' });
    await expect(touched.create(org, { id: 'taken', name: 'two' })).rejects.toMatchObject({ code: 'already_exists' });

    expect(await touches(org)).toBe(1);
  });

  // Fewer writers than the repository's 10 attempts, so each is sure to get through.
  it('loses no touch and no update when writers race on the touch', async () => {
    const org = orgId();
    await touched.create(org, { id: 'counter', name: '0' });

    await Promise.all(Array.from({ length: 6 }, () => touched.update(org, 'counter', (current) => ({ ...current, name: String(Number(current.name) + 1) }))));

    expect((await touched.get(org, 'counter')).name).toBe('6');
    expect(await touches(org)).toBe(7);
  });
});
