import { ConflictError, InvalidInputError, UnresolvedConflictError } from '../../shared/errors';
import { db, tableName } from '../../shared/db/client';
import { decided, isLostRace, RACE_ATTEMPTS, retryOnConflict } from '../../shared/db/optimistic';

/**
 * The one optimistic-retry policy: a write that loses a race reads again and tries again, at most
 * RACE_ATTEMPTS times; nothing else is retried.
 */

const race = () => new ConflictError('conflict', 'Feature f was changed by another request; retry');
const named = (name: string, fields: object = {}) => Object.assign(new Error(name), { name, ...fields });

describe('retryOnConflict', () => {
  it(`stops after ${RACE_ATTEMPTS} lost races with the race's own ConflictError 'conflict'`, async () => {
    let attempts = 0;
    const lost = race();

    const error = await retryOnConflict(async () => {
      attempts += 1;
      throw lost;
    }).catch((e) => e);

    expect(attempts).toBe(RACE_ATTEMPTS);
    expect(error).toBe(lost);
  });

  it("ends a run of a single write's failed conditions with ConflictError 'conflict', the caller's when it names one", async () => {
    const general = await retryOnConflict(async () => {
      throw named('ConditionalCheckFailedException');
    }).catch((e) => e);
    const named409 = await retryOnConflict(
      async () => {
        throw named('ConditionalCheckFailedException');
      },
      () => new ConflictError('conflict', 'Saved group g was changed by another request; retry'),
    ).catch((e) => e);

    expect(general).toBeInstanceOf(ConflictError);
    expect(general.code).toBe('conflict');
    expect(named409).toMatchObject({ code: 'conflict', message: 'Saved group g was changed by another request; retry' });
  });

  it('returns what the first attempt that wins returns, giving each attempt its number', async () => {
    const seen: number[] = [];

    const result = await retryOnConflict(async (attempt) => {
      seen.push(attempt);
      if (attempt < 3) throw race();
      return 'written';
    });

    expect(result).toBe('written');
    expect(seen).toEqual([1, 2, 3]);
  });

  it.each([
    ['an id already taken', new ConflictError('already_exists', 'Feature f already exists')],
    ['a state that forbids the change', new ConflictError('invalid_status', 'The experiment is stopped')],
    ['bad input', new InvalidInputError('Request body: [name] is required')],
    ['throttling the client gave up on', named('ProvisionedThroughputExceededException')],
    ['a bug', new TypeError('x is undefined')],
  ])('surfaces %s at once, without retrying', async (_, thrown) => {
    let attempts = 0;

    const error = await retryOnConflict(async () => {
      attempts += 1;
      throw thrown;
    }).catch((e) => e);

    expect(error).toBe(thrown);
    expect(attempts).toBe(1);
  });
});

describe('decided', () => {
  it("ends the retries at once with what the caller's decision threw, even a ConflictError 'conflict'", async () => {
    let attempts = 0;
    const refusal = new ConflictError('conflict', 'Namespace ns_1 is used by 1 experiment(s)');

    const outcome = retryOnConflict(async () => {
      attempts += 1;
      await decided(() => {
        throw refusal;
      });
    });

    await expect(outcome).rejects.toBe(refusal);
    expect(attempts).toBe(1);
  });

  it('returns what the decision returns', async () => {
    await expect(retryOnConflict(() => decided(async () => 42))).resolves.toBe(42);
  });
});

describe('a lost race', () => {
  it.each([
    ['a transaction condition on a version read', race()],
    ['a single write whose condition failed', named('ConditionalCheckFailedException')],
    ['a single write that met a transaction', named('TransactionConflictException')],
    ['a transaction cancelled by another one', named('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] })],
  ])('is %s', (_, error) => {
    expect(isLostRace(error)).toBe(true);
  });

  it.each([
    ['an id already taken', new ConflictError('already_exists', 'taken')],
    ['a draft that conflicts with the live version (a `conflict` reading again cannot settle)', new UnresolvedConflictError('conflicts', { conflicts: [] })],
    ['a transaction cancelled for throttling (the client retries it)', named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ThrottlingError' }] })],
    ['a transaction whose condition failed unmapped', named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'TransactionConflict' }] })],
    ['nothing', undefined],
  ])('is not %s', (_, error) => {
    expect(isLostRace(error)).toBe(false);
  });
});

describe('a read-modify-write on DynamoDB Local', () => {
  const Key = { PK: 'OPTIMISTIC#counter', SK: 'ITEM' };

  it('reads again after another writer moved the version, and applies its change once on top of it', async () => {
    await db.put({ TableName: tableName(), Item: { ...Key, version: 1, n: 0 } });
    let interfered = false;

    await retryOnConflict(async () => {
      const { Item } = await db.get({ TableName: tableName(), Key, ConsistentRead: true });
      if (!interfered) {
        interfered = true;
        await db.put({ TableName: tableName(), Item: { ...Key, version: Item!.version + 1, n: Item!.n + 10 } });
      }
      await db.put({
        TableName: tableName(),
        Item: { ...Key, version: Item!.version + 1, n: Item!.n + 1 },
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': Item!.version },
      });
    });

    expect((await db.get({ TableName: tableName(), Key, ConsistentRead: true })).Item).toMatchObject({ version: 3, n: 11 });
  });
});
