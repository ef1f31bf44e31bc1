import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../errors';
import type { FeatureRevision, FeatureRevisionRecord } from '../contracts/features';
import { featureListTags, type FeatureContent, type StoredFeature } from '../domain/features';
import { fieldsOf } from '../domain/revisions';
import type { RevisionLogEntry } from '../domain/revision-reviews';
import { latestRevisions, prepareRevisionListRemoval, prepareRevisionListStart, readRevision, revisionItem, type StoredRevision } from './feature-revisions';
import { environmentParents, type EnvironmentParents } from '../payload/environment-inheritance';
import { db, tableName } from '../db/client';
import { environments } from './environments';
import { keys } from '../db/keys';
import { prepareAppend, readPageIndex } from '../db/page-index';
import { getItems, queryAll, repository, transact, type ListVisibility, type TransactionOp, type Versioned } from '../db/repository';
import { preparePayloadChanges } from '../payload/write';
import { prepareScheduleBoundaries } from './schedule-boundaries';

/** Organizations hold thousands of features: keep a page index so an unfiltered page costs the same at any offset. */
export const features = repository<StoredFeature>({ type: 'FEATURE', label: 'Feature', listTags: featureListTags, pageIndex: true });

/** Each environment's parent: feature writes keep child environments' payload entries in step. */
export const readEnvironmentParents = async (orgId: string) => environmentParents(await environments.all(orgId));

const servedSomewhere = (feature: FeatureContent | undefined) =>
  !!feature && !feature.archived && Object.values(feature.environments).some((settings) => settings.enabled);

/** Who publishes a change, and why; recorded in the feature's revision. */
export interface ChangeAuthor {
  /** A member id, or the API key's record id for an organization key. */
  by: string;
  comment: string;
}

/** One feature change for `prepareFeatureChanges`: `current` as read (absent for a create), `next` (absent for a delete). */
export interface FeatureChange {
  current?: Versioned<StoredFeature>;
  next?: FeatureContent;
  author: ChangeAuthor;
  /** The draft this change publishes (as read): it becomes the live revision, keeping its number. */
  publishes?: StoredRevision;
  /** The log of the revision the change records when it publishes no draft. */
  log?: RevisionLogEntry[];
}

function revisionRecord(feature: StoredFeature, baseVersion: number): StoredRevision {
  const { revision } = feature;
  return {
    featureId: feature.id,
    baseVersion,
    version: revision.version,
    comment: revision.comment,
    date: revision.date,
    dateUpdated: revision.date,
    status: 'published',
    createdBy: revision.createdBy,
    publishedBy: revision.publishedBy,
    // The whole of what went live, so a later draft can merge against it and a revert can restore it.
    ...fieldsOf(feature),
  };
}

/**
 * The Put of the revision a change publishes: a new number is taken only if still free (a draft
 * created meanwhile may have taken it: the change then reads again); a published draft is replaced
 * only if nobody edited, published or discarded it since it was read.
 */
function prepareRevision(orgId: string, record: StoredRevision, published?: StoredRevision): TransactionOp {
  const condition = published
    ? {
        ConditionExpression: 'changeCount = :changeCount AND #status IN (:draft, :pending, :approved, :sent)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':changeCount': published.changeCount ?? 0,
          ':draft': 'draft',
          ':pending': 'pending-review',
          ':approved': 'approved',
          ':sent': 'changes-requested',
        },
      }
    : // A create's revision 1 replaces any leftover of a deleted feature with the same id.
      record.version === 1
      ? {}
      : { ConditionExpression: 'attribute_not_exists(PK)' };
  return {
    op: {
      Put: {
        TableName: tableName(),
        Item: revisionItem(orgId, record),
        ...condition,
      },
    },
    onConditionFailed: () => new ConflictError('conflict', `Feature ${record.featureId} was changed by another request; retry`),
  };
}

/**
 * Everything one atomic change of features must write, as transaction ops: each feature's Put
 * (conditional on the version it was read at; a create on the id being free) or Delete, with its
 * revision bumped and recorded, and its SDK payload entry in every affected environment written
 * (with that environment's payload version bumped). Call it after reading the features and commit
 * the ops (plus any of your own, e.g. a ramp schedule's) with `transact` at once; on a `conflict`
 * ConflictError, read everything again and retry. Several features may change at once; each may appear once.
 */
export async function prepareFeatureChanges(
  orgId: string,
  changes: FeatureChange[],
  options: { exactList?: boolean; parents?: EnvironmentParents } = {},
): Promise<{ features: Array<StoredFeature | undefined>; ops: TransactionOp[] }> {
  const ops: TransactionOp[] = [];
  const written: Array<StoredFeature | undefined> = [];
  changes.forEach(({ current, next, author, publishes, log }) => {
    if (!next) {
      const id = current!.entity.id;
      ops.push({
        op: {
          Delete: {
            TableName: tableName(),
            Key: keys.entity(orgId, 'FEATURE', id),
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current!.version },
          },
        },
        onConditionFailed: () => new ConflictError('conflict', `Feature ${id} was changed by another request; retry`),
      });
      written.push(undefined);
      return;
    }
    const baseVersion = current?.entity.revision.version ?? 0;
    const date = new Date().toISOString();
    const revision: FeatureRevision = publishes
      ? { version: publishes.version, comment: author.comment, date, createdBy: publishes.createdBy ?? author.by, publishedBy: author.by }
      : // Revision numbers are shared with drafts: a change takes the next one after the newest.
        { version: (current?.entity.newestRevision ?? baseVersion) + 1, comment: author.comment, date, createdBy: author.by, publishedBy: author.by };
    const newestRevision = Math.max(current?.entity.newestRevision ?? baseVersion, revision.version);
    const prepared = current
      ? features.prepareUpdate(orgId, current, { ...next, revision, newestRevision } as StoredFeature)
      : features.prepareCreate(orgId, { ...next, revision, newestRevision });
    const record = publishes
      ? { ...publishes, ...fieldsOf(prepared.entity), status: 'published' as const, publishedBy: author.by, datePublished: date, dateUpdated: date, comment: author.comment || publishes.comment }
      : { ...revisionRecord(prepared.entity, baseVersion), ...(log ? { log } : {}) };
    ops.push(prepared, prepareRevision(orgId, record, publishes));
    written.push(prepared.entity);
  });
  const [listOps, parents] = await Promise.all([
    prepareListChanges(orgId, changes, written, options.exactList ?? true),
    // Child environments without settings of their own take their parent's entries.
    // A feature on in no environment (before and after) has no entry anywhere, inherited or not.
    options.parents ?? (changes.some(({ current, next }) => servedSomewhere(current?.entity) || servedSomewhere(next)) ? readEnvironmentParents(orgId) : new Map()),
  ]);
  ops.push(...listOps);
  // A feature's first revision may be its organization's first: the revision list then gets its page index.
  if (changes.some((change) => !change.current)) ops.push(prepareRevisionListStart(orgId));
  const transitions = changes.map(({ current, next }, i) => ({
    id: current?.entity.id ?? next!.id,
    before: current?.entity,
    after: written[i],
  }));
  ops.push(...preparePayloadChanges(orgId, transitions, parents));
  ops.push(...prepareScheduleBoundaries(orgId, written));
  return { features: written, ops };
}

/**
 * Keeps the page index right: a single create appends to it (exact, one more read); any other mix
 * of creates and deletes, or a create that keeps losing the index to other creates, marks it
 * stale, to be rebuilt by the next list.
 */
async function prepareListChanges(
  orgId: string,
  changes: FeatureChange[],
  written: Array<StoredFeature | undefined>,
  exact: boolean,
): Promise<TransactionOp[]> {
  const creates = changes.filter((change) => !change.current);
  const deletes = changes.filter((change) => !change.next);
  if (creates.length === 0 && deletes.length === 0) return [];
  if (exact && creates.length === 1 && deletes.length === 0) {
    const created = written[changes.indexOf(creates[0])]!;
    return [prepareAppend(orgId, 'FEATURE', await readPageIndex(orgId, 'FEATURE'), keys.listSort(created.dateCreated, created.id))];
  }
  return features.prepareListChange(orgId);
}

/**
 * Writes one atomic change of features (see `prepareFeatureChanges`) and answers the features as
 * written. A `conflict` ConflictError means another write went first: read again and retry.
 */
export async function writeFeatureChanges(
  orgId: string,
  changes: FeatureChange[],
  options: { exactList?: boolean; parents?: EnvironmentParents; also?: TransactionOp[] } = {},
): Promise<Array<StoredFeature | undefined>> {
  const { features: written, ops } = await prepareFeatureChanges(orgId, changes, options);
  // `also`: other items that must change in the same transaction (a ramp schedule a publish activates).
  await transact([...ops, ...(options.also ?? [])]);
  return written;
}

/** DynamoDB's limit of items in one TransactWriteItems call. */
const TRANSACTION_MAX_ITEMS = 100;

/**
 * Deletes a feature as read (conditional on that version), its revisions (drafts too), and its entries in the
 * SDK payloads. The revisions (numbered 1 to the newest) go in the same transaction, so a crash
 * leaves none behind; a feature with more revisions than that transaction has room for has them deleted
 * right after it instead.
 */
export async function removeFeature(orgId: string, current: Versioned<StoredFeature>): Promise<void> {
  const id = current.entity.id;
  const { ops } = await prepareFeatureChanges(orgId, [{ current, author: { by: '', comment: '' } }]);
  // Its revisions leave the revision list: positions move, so the list's page index is rebuilt.
  ops.push(prepareRevisionListRemoval(orgId));
  // Drafts may hold numbers past the live one.
  const revisions = current.entity.newestRevision ?? current.entity.revision.version;
  const fits = ops.length + revisions <= TRANSACTION_MAX_ITEMS;
  if (fits) ops.push(...Array.from({ length: revisions }, (_, i) => deleteRevisionOp(orgId, id, i + 1)));
  await transact(ops);
  if (!fits) await deleteRevisions(orgId, id);
}

function deleteRevisionOp(orgId: string, id: string, version: number): TransactionOp {
  return {
    op: { Delete: { TableName: tableName(), Key: keys.featureRevision(orgId, id, version) } },
    onConditionFailed: () => new ConflictError('conflict', `Feature ${id} was changed by another request; retry`),
  };
}

/** Every stored revision of a feature that no longer exists; a leftover would show under a new feature of the same id. */
async function deleteRevisions(orgId: string, id: string): Promise<void> {
  const revisionKeys = await queryKeys({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.entity(orgId, 'FEATURE', id).PK, ':prefix': keys.featureRevisionPrefix(id) },
  });
  for (let start = 0; start < revisionKeys.length; start += 25) {
    let request: Record<string, unknown[]> | undefined = {
      [tableName()]: revisionKeys.slice(start, start + 25).map((Key) => ({ DeleteRequest: { Key } })),
    };
    while (request && Object.keys(request).length) {
      const result = await db.batchWrite({ RequestItems: request as never });
      request = result.UnprocessedItems as typeof request;
    }
  }
}

/** The published revisions of a feature, oldest first. */
export async function featureRevisions(orgId: string, id: string): Promise<FeatureRevisionRecord[]> {
  return (await latestRevisions(orgId, id, Infinity, ['published'])).reverse();
}

/** The newest `max` published revisions of a feature, newest first. */
export async function latestFeatureRevisions(orgId: string, id: string, max: number): Promise<FeatureRevisionRecord[]> {
  return latestRevisions(orgId, id, max, ['published']);
}

async function queryKeys(input: Omit<QueryCommandInput, 'TableName'>): Promise<Array<{ PK: string; SK: string }>> {
  const items = await queryAll({ ProjectionExpression: 'PK, SK', ...input });
  return items.map((item) => ({ PK: item.PK, SK: item.SK }));
}

/** A list filter: every tag of `all` must be present, and at least one of `any` when given; `visible` must pass the tags. */
export interface FeatureFilter {
  all: string[];
  any?: string[];
  visible?: ListVisibility;
}

/**
 * The ids of the matching features in creation order, from the keys-only list index (the small
 * `listTags` attribute is on the index, so filtering never reads whole items).
 */
export async function featureIds(orgId: string, filter: FeatureFilter): Promise<string[]> {
  const values: Record<string, string> = { ':pk': keys.listPartition(orgId, 'FEATURE') };
  const clauses = filter.all.map((tag, i) => {
    values[`:all${i}`] = tag;
    return `contains(listTags, :all${i})`;
  });
  if (filter.any?.length) {
    const any = filter.any.map((tag, i) => {
      values[`:any${i}`] = tag;
      return `contains(listTags, :any${i})`;
    });
    clauses.push(`(${any.join(' OR ')})`);
  }
  const found = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ...(clauses.length ? { FilterExpression: clauses.join(' AND ') } : {}),
    ExpressionAttributeValues: values,
    ProjectionExpression: filter.visible ? 'SK, listTags' : 'SK',
  });
  const { visible } = filter;
  const prefix = keys.entityPrefix('FEATURE');
  return (visible ? found.filter((key) => visible(key.listTags ?? [])) : found).map((key) => (key.SK as string).slice(prefix.length));
}

/**
 * One page of matching features. Filters the list index can express as "all of these tags" go
 * through the repository (whose page index makes an unfiltered page cost the same at any offset);
 * "any of these projects" walks the keys-only list index here. Either way only the page's items are read.
 */
export async function listFeaturePage(
  orgId: string,
  page: { limit: number; offset: number; filter: FeatureFilter },
): Promise<{ items: StoredFeature[]; total: number }> {
  if (!page.filter.any?.length && !page.filter.visible) return features.list(orgId, { limit: page.limit, offset: page.offset, tags: page.filter.all });
  const ids = await featureIds(orgId, page.filter);
  return { items: await features.getMany(orgId, ids.slice(page.offset, page.offset + page.limit)), total: ids.length };
}

/** Every matching feature, for `skipPagination`. */
export async function allFeatures(orgId: string, filter: FeatureFilter): Promise<StoredFeature[]> {
  return features.getMany(orgId, await featureIds(orgId, filter));
}

/** The organization's environment ids, in creation order. */
export async function environmentIds(orgId: string): Promise<string[]> {
  return (await environments.all(orgId)).map((environment) => environment.id);
}

/** One published revision of a feature, or undefined when it has none with that number (or it is a draft). One GetItem. */
export async function featureRevision(orgId: string, id: string, version: number): Promise<FeatureRevisionRecord | undefined> {
  const revision = await readRevision(orgId, id, version);
  return revision?.status === 'published' ? revision : undefined;
}
