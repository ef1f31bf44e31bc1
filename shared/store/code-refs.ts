import { ConflictError } from '../errors';
import type { CodeRefInput } from '../contracts/code-refs';
import { retryOnConflict } from '../db/optimistic';
import { keys } from '../db/keys';
import { queryAll, repository, toEntity, transact, type TransactionOp } from '../db/repository';

/** The references of one feature in one repository branch, as stored. */
export interface StoredCodeRef {
  id: string;
  feature: string;
  repo: string;
  branch: string;
  refs: CodeRefInput[];
  dateCreated: string;
  dateUpdated: string;
}

export const codeRefs = repository<StoredCodeRef>({ type: 'CODE_REF', label: 'Code reference' });

/** DynamoDB's limit of items in one transaction. */
const TRANSACTION_ITEMS = 100;

/** The code references of one feature, in every repository and branch: one Query of its key prefix. */
export async function codeRefsOfFeature(orgId: string, feature: string): Promise<StoredCodeRef[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.entity(orgId, 'CODE_REF', '').PK, ':prefix': keys.codeRefFeaturePrefix(feature) },
    ConsistentRead: true,
  });
  return items.map((item) => toEntity<StoredCodeRef>(item));
}

/**
 * Replaces the references of each feature in `byFeature` for one repository branch (an empty list
 * keeps the item with no references, as GrowthBook does). Each write is conditional on the version
 * read; up to 100 features go in one transaction, and a request naming more is committed in
 * transactions of 100 (each feature's item is independent of the others).
 */
export async function replaceCodeRefs(orgId: string, repo: string, branch: string, byFeature: Map<string, CodeRefInput[]>): Promise<void> {
  const features = [...byFeature.keys()];
  for (let start = 0; start < features.length; start += TRANSACTION_ITEMS) {
    const chunk = features.slice(start, start + TRANSACTION_ITEMS);
    await retryOnConflict(async () => {
      const ids = chunk.map((feature) => keys.codeRefId(feature, repo, branch));
      const current = new Map((await codeRefs.readMany(orgId, ids)).map((found) => [found.entity.id, found]));
      const ops: TransactionOp[] = chunk.map((feature, i) => {
        const existing = current.get(ids[i]);
        const refs = byFeature.get(feature)!;
        return existing
          ? codeRefs.prepareUpdate(orgId, existing, { ...existing.entity, refs })
          : codeRefs.prepareCreate(orgId, { id: ids[i], feature, repo, branch, refs });
      });
      try {
        await transact(ops);
      } catch (error) {
        // Another submission for the same branch created one of these in between: a lost race too; read again and re-apply.
        if (error instanceof ConflictError && error.code === 'already_exists') throw new ConflictError('conflict', error.message);
        throw error;
      }
    });
  }
}
