/**
 * The ceiling DynamoDB Local itself sets for the ramp advancer: one of the advancer's own batch
 * transactions (the same items, sizes, index keys and kinds of write), replayed on copies of its
 * items as fast as the store takes them, with none of our code between. A replay reads nothing and
 * never conflicts, so the advancer cannot beat it.
 */
import { db } from '../shared/db/client';

type Op = Record<string, { Key?: Record<string, unknown>; Item?: Record<string, unknown>; [field: string]: unknown }>;

/** The op on the copy of its item under `prefix`; overwrites are conditional on the copy existing, as the advancer's are on a version. */
function copyOp(op: Op, prefix: string, overwrite: boolean): Op | undefined {
  const [kind, body] = Object.entries(op)[0];
  if (kind === 'ConditionCheck') return undefined;
  // Index keys move too, so the copies cost the same index writes but never show in the due index.
  const moved = (item: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(item).map(([name, value]) => [name, /^(GSI\d)?PK$/.test(name) ? `${prefix}${String(value)}` : value]));
  const copy = { ...body };
  if (copy.Item) copy.Item = moved(copy.Item);
  if (copy.Key) copy.Key = moved(copy.Key);
  if (kind === 'Update') {
    delete copy.ConditionExpression; // the update expression still uses every value
    return { [kind]: copy };
  }
  delete copy.ConditionExpression;
  delete copy.ExpressionAttributeNames;
  delete copy.ExpressionAttributeValues;
  if (overwrite && kind === 'Put') copy.ConditionExpression = 'attribute_exists(PK)';
  return { [kind]: copy };
}

/** Replays `ops` (one transaction's TransactItems) on `lanes` sets of copies at once for about `seconds`; transactions per second. */
export async function replayRate(ops: Op[], lanes: number, seconds: number): Promise<number> {
  const run = Math.random().toString(36).slice(2);
  let done = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let round = 0; performance.now() < deadline; round++) {
        const TransactItems = ops.flatMap((op) => copyOp(op, `REPLAY#${run}#${lane}#`, round > 0) ?? []);
        await db.transactWrite({ TransactItems: TransactItems as never });
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}
