import * as contract from '../contracts/releases';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import { ForbiddenError, InvalidInputError, NotFoundError, PublishBlockedError, UnresolvedConflictError, type PublishGate } from '../errors';
import { newId } from '../ids';
import { retryOnConflict } from '../db/optimistic';
import { transact, TRANSACTION_MAX_ITEMS, type TransactionOp } from '../db/repository';
import { authorOf } from '../domain/features';
import { environmentParents } from '../payload/environment-inheritance';
import { prepareTouch, shardOf } from '../payload/write';
import { environments as environmentStore } from '../store/environments';
import { features, prepareFeatureChanges, type FeatureChange } from '../store/features';
import { savedGroupRevisions } from '../store/saved-group-revisions';
import { decidePublish, revisionId } from './feature-revisions';
import { decideLiveChange, type Decision } from './features';
import { approvalSettings } from './approvals';
import { decideGroupPublish } from './saved-group-revisions';

/**
 * `POST /releases/publish-revisions`: several drafts, of features and of saved groups, published
 * together, all or none. Every entity is read and its draft merged and checked as its own publish
 * checks it (permissions, approval gate, merge against live); anything that stops an item is a
 * gate, and any gate stops the whole release (GrowthBook's 422 listing them all). The entities, their
 * revisions, payload writes and published events (sharing one `bulkPublishId`) are then written in
 * one DynamoDB transaction, conditional on every version read: a change that lands first makes the
 * release read and merge again, so nothing is published half.
 */

interface ItemRef {
  entityType: 'feature' | 'saved-group';
  /** The identifier the request used (for results and gates). */
  id: string;
  /** The feature's or the saved group's id. */
  entityId: string;
  version: number;
}

const FEATURE_REVISION_ID = /^frev_([1-9][0-9]{0,8})_(.+)$/;

/**
 * The revision a reference names (a saved-group revision id is looked up in `groupRevisions`, the
 * organization's saved-group revisions by id; one unknown becomes the item's not-found gate, as
 * GrowthBook answers it); configs and constants are refused (400): Switchyard does not serve them.
 */
function itemRef(ref: contract.RevisionRef, index: number, groupRevisions: Map<string, { entityType: string; entityId: string; version: number }>): ItemRef {
  const field = `Request body: [revisions.${index}]`;
  if (ref.entityType !== 'feature' && ref.entityType !== 'saved-group') {
    throw new InvalidInputError(`${field} ${ref.entityType} revisions cannot be published here: Switchyard publishes feature and saved-group revisions in a release`);
  }
  if ('revisionId' in ref) {
    const match = FEATURE_REVISION_ID.exec(ref.revisionId);
    const found = match ? { entityType: 'feature', entityId: match[2]!, version: Number(match[1]) } : groupRevisions.get(ref.revisionId);
    if (found && found.entityType !== ref.entityType) {
      throw new InvalidInputError(`${field} Revision "${ref.revisionId}" belongs to a ${found.entityType}, not a ${ref.entityType}`);
    }
    if (!found && ref.entityType === 'feature') {
      throw new InvalidInputError(`${field} [revisionId] ${ref.revisionId} is not a feature revision id (frev_<version>_<featureId>)`);
    }
    return found
      ? { entityType: ref.entityType, id: found.entityId, entityId: found.entityId, version: found.version }
      : { entityType: ref.entityType, id: ref.revisionId, entityId: ref.revisionId, version: 0 };
  }
  return { entityType: ref.entityType, id: ref.id, entityId: ref.id, version: ref.version };
}

/** The organization's saved-group revisions by id, read only when a reference names one by id. */
async function groupRevisionsById(orgId: string, refs: contract.RevisionRef[]) {
  const wanted = refs.some((ref) => ref.entityType === 'saved-group' && 'revisionId' in ref);
  const all = wanted ? await savedGroupRevisions.allOfType(orgId) : [];
  return new Map(all.map((revision) => [revision.id, { entityType: 'saved-group', entityId: revision.savedGroupId, version: revision.version }]));
}

/** A blocking gate of GrowthBook's shape for one item. */
function gateOf(ref: ItemRef, type: string, message: string): PublishGate {
  const rebase =
    ref.entityType === 'feature' ? `/v2/features/${ref.entityId}/revisions/${ref.version}/rebase` : `/saved-groups-revisions/${ref.entityId}/${ref.version}/rebase`;
  return {
    entityType: ref.entityType,
    id: ref.id,
    version: ref.version,
    type,
    severity: 'blocker',
    messages: [message],
    override: null,
    requiresPermission: null,
    resolution: type === 'merge-conflict' ? { action: 'rebase', method: 'POST', path: rebase } : null,
  };
}

const shownType = { feature: 'Feature', 'saved-group': 'Saved Group' } as const;

/** What stops an item, as GrowthBook names the gates; undefined for an error that is no item's problem (a store failure). */
function gatesFor(ref: ItemRef, error: unknown): PublishGate[] | undefined {
  // The saved group's own gates (approval-required, pending-schedule, archive-dependents) are GrowthBook's already.
  if (error instanceof PublishBlockedError) return error.gates.map((gate) => ({ ...gate, id: ref.id }));
  if (error instanceof NotFoundError) return [gateOf(ref, 'not-found', error.message)];
  if (error instanceof ForbiddenError)
    return [gateOf(ref, 'permission-denied', `You do not have permission to publish ${shownType[ref.entityType]} "${ref.id}": ${error.message}`)];
  if (error instanceof UnresolvedConflictError && error.details?.conflicts) return [gateOf(ref, 'merge-conflict', error.message)];
  if (error instanceof InvalidInputError) {
    return [gateOf(ref, /^Cannot publish a revision with status/.test(error.message) ? 'revision-closed' : 'plan-failed', error.message)];
  }
  return undefined;
}

type Planned =
  | { ref: ItemRef; revisionId: string; change: FeatureChange; also: Decision['also']; bypassedGates: Array<{ type: string; via: string }> }
  | { ref: ItemRef; revisionId: string; ops: TransactionOp[]; bypassedGates: Array<{ type: string; via: string }> };

/** `POST /releases/publish-revisions`: see above. */
export async function postReleasePublishRevisions({
  auth,
  body,
}: UseCaseInput<typeof contract.postReleasePublishRevisions>): UseCaseOutput<typeof contract.postReleasePublishRevisions> {
  const groupRevisions = await groupRevisionsById(auth.orgId, body.revisions);
  const refs = body.revisions.map((ref, i) => itemRef(ref, i, groupRevisions));
  const seen = new Set<string>();
  for (const ref of refs) {
    const key = `${ref.entityType}:${ref.entityId}`;
    if (seen.has(key)) throw new InvalidInputError(`Duplicate entity in request: ${key} — one revision per entity`);
    seen.add(key);
  }
  const bulkPublishId = newId('pub_');
  const author = authorOf(auth, body.comment ?? '');
  return retryOnConflict(async () => {
    const [all, approvals] = await Promise.all([environmentStore.all(auth.orgId), approvalSettings(auth.orgId)]);
    // Each entity is decided on its own, all at once; gates and results keep the request's order.
    const decisions = await Promise.all(
      refs.map(async (ref): Promise<{ gates: PublishGate[] } | { planned: Planned }> => {
        try {
          return { planned: ref.entityType === 'feature' ? await planFeature(ref) : await planGroup(ref) };
        } catch (error) {
          const gates = gatesFor(ref, error);
          if (!gates) throw error;
          return { gates };
        }
      }),
    );

    async function planFeature(ref: ItemRef): Promise<Planned> {
      const current = await features.read(auth.orgId, ref.entityId);
      if (!current) throw new NotFoundError(`Feature "${ref.id}" not found`);
      const decide = (live: typeof current.entity, environmentIds: string[]) => decidePublish(auth, live, environmentIds, ref.version, { bulkPublishId });
      const { change, also, bypassedGates } = await decideLiveChange(auth, current, all, decide, author, approvals);
      if (!change) throw new InvalidInputError('Cannot publish: no changes detected in this revision');
      return { ref, revisionId: revisionId(ref.entityId, ref.version), change, also, bypassedGates };
    }

    async function planGroup(ref: ItemRef): Promise<Planned> {
      if (ref.version === 0) throw new NotFoundError(`Saved group revision "${ref.id}" not found`);
      const decided = await decideGroupPublish(auth, ref.entityId, ref.version, { ignoreWarnings: body.ignoreWarnings, bulkPublishId });
      return { ref, revisionId: decided.revision.id, ops: decided.ops, bypassedGates: decided.bypassedGates };
    }

    const gates = decisions.flatMap((decision) => ('gates' in decision ? decision.gates : []));
    const planned = decisions.flatMap((decision) => ('planned' in decision ? [decision.planned] : []));
    const results = (status: 'published' | 'would-publish') =>
      planned.map(({ ref, revisionId }) => ({ entityType: ref.entityType, id: ref.id, version: ref.version, revisionId, status }));
    const bypassedGates = planned.flatMap((item) =>
      item.bypassedGates.map((gate) => ({ entityType: item.ref.entityType, id: item.ref.id, version: item.ref.version, type: gate.type, via: gate.via })),
    );
    if (body.dryRun) return { dryRun: true, results: results('would-publish'), gates, bypassedGates, warnings: [] };
    if (gates.length) throw new PublishBlockedError(gates);
    const featureItems = planned.flatMap((item) => ('change' in item ? [item] : []));
    const groupItems = planned.flatMap((item) => ('ops' in item ? [item] : []));
    // One call for every feature: items they share (a payload shard's version) are written once.
    const { features: written, ops } = await prepareFeatureChanges(
      auth.orgId,
      featureItems.map(({ change }) => change),
      { parents: environmentParents(all) },
    );
    // Saved groups bump the payload's references versions: once per shard, as one transaction may write an item once.
    const shards = new Map(groupItems.map((item) => [shardOf(item.ref.entityId), item.ref.entityId]));
    const transaction = [
      ...ops,
      ...featureItems.flatMap(({ also }, i) => also?.(written[i]!) ?? []),
      ...groupItems.flatMap((item) => item.ops),
      ...[...shards.values()].map((groupId) => prepareTouch(auth.orgId, groupId)),
    ];
    if (transaction.length > TRANSACTION_MAX_ITEMS) {
      throw new InvalidInputError(
        `Request body: [revisions] this release writes ${transaction.length} items, more than the ${TRANSACTION_MAX_ITEMS} one DynamoDB transaction holds; publish fewer revisions together`,
      );
    }
    await transact(transaction);
    return { dryRun: false, bulkPublishId, results: results('published'), gates: [], bypassedGates, warnings: [] };
  });
}
