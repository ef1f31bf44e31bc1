import { ConflictError } from '../errors';
import { environmentParents, withInheritedSettings } from './environment-inheritance';
import type { StoredFeature } from '../domain/features';
import { environments } from '../store/environments';
import { featureIds, features } from '../store/features';
import { retryOnConflict } from '../db/optimistic';
import { keys } from '../db/keys';
import { tableName } from '../db/client';
import { transact, type TransactionOp, type Versioned } from '../db/repository';
import { preparePayloadChanges } from './write';

/**
 * A new child environment serves, for each existing feature (which has no settings of its own
 * there yet), the entry of its nearest ancestor. Feature writes keep those entries in step from
 * then on (`preparePayloadChanges` with the parents); this writes them once, when the child is created.
 */

/** Features per transaction: a check and an entry each, plus up to 16 version bumps, under DynamoDB's 100. */
const CHUNK = 40;

const unchanged = (orgId: string, { entity, version }: Versioned<StoredFeature>): TransactionOp => ({
  op: {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.entity(orgId, 'FEATURE', entity.id),
      ConditionExpression: '#version = :version',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':version': version },
    },
  },
  onConditionFailed: () => new ConflictError('conflict', `Feature ${entity.id} changed while its entries were written; retry`),
});

/** The entry writes of `environment` for features read at some version, each conditional on the feature being unchanged since. */
function prepareInherited(orgId: string, environment: string, read: Array<Versioned<StoredFeature>>, parents: Map<string, string>): TransactionOp[] {
  const inheriting = read.flatMap((item) => {
    const settings = item.entity.environments[environment] ? undefined : withInheritedSettings(item.entity, parents).environments[environment];
    return settings ? [{ item, after: { ...item.entity, environments: { [environment]: settings } } }] : [];
  });
  if (inheriting.length === 0) return [];
  return [
    ...inheriting.map(({ item }) => unchanged(orgId, item)),
    ...preparePayloadChanges(orgId, inheriting.map(({ item, after }) => ({ id: item.entity.id, after }))),
  ];
}

/**
 * Writes the payload entries `environment` (just created, with a parent) inherits from its
 * ancestors, a chunk of features per transaction; a chunk whose features changed meanwhile is read again.
 */
export async function writeInheritedEntries(orgId: string, environment: string): Promise<void> {
  const parents = environmentParents(await environments.all(orgId));
  if (!parents.has(environment)) return;
  const ids = await featureIds(orgId, { all: [] });
  for (let start = 0; start < ids.length; start += CHUNK) {
    const chunk = ids.slice(start, start + CHUNK);
    await retryOnConflict(async () => {
      const ops = prepareInherited(orgId, environment, await features.readMany(orgId, chunk), parents);
      if (ops.length) await transact(ops);
    });
  }
}
