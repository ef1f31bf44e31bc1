import * as contract from '../contracts/releases';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import { ForbiddenError, InvalidInputError, NotFoundError, PublishBlockedError, UnresolvedConflictError, type PublishGate } from '../errors';
import { newId } from '../ids';
import { retryOnConflict } from '../db/optimistic';
import { transact, TRANSACTION_MAX_ITEMS } from '../db/repository';
import { authorOf } from '../domain/features';
import { environmentParents } from '../payload/environment-inheritance';
import { environments as environmentStore } from '../store/environments';
import { features, prepareFeatureChanges, type FeatureChange } from '../store/features';
import { decidePublish, revisionId } from './feature-revisions';
import { decideLiveChange, type Decision } from './features';
import { approvalSettings } from './approvals';

/**
 * `POST /releases/publish-revisions`: several drafts published together, all or none. Every feature
 * is read and its draft merged and checked as a single publish checks it; anything that stops an
 * item is a gate, and any gate stops the whole release (GrowthBook's 422 listing them all). The
 * features, their revisions, payload entries and `feature.revision.published` events (sharing one
 * `bulkPublishId`) are then written in one DynamoDB transaction, conditional on every version read:
 * a change that lands first makes the release read and merge again, so nothing is published half.
 */

interface FeatureRef {
  /** The identifier the request used (for results and gates). */
  id: string;
  featureId: string;
  version: number;
}

const FEATURE_REVISION_ID = /^frev_([1-9][0-9]{0,8})_(.+)$/;

/** The feature revision a reference names; other entity types are refused (400) with what Switchyard serves. */
function featureRef(ref: contract.RevisionRef, index: number): FeatureRef {
  const field = `Request body: [revisions.${index}]`;
  if (ref.entityType !== 'feature') {
    throw new InvalidInputError(
      `${field} ${ref.entityType} revisions cannot be published here: Switchyard publishes feature revisions in a release${ref.entityType === 'saved-group' ? ' (saved-group revisions are not served yet)' : ''}`,
    );
  }
  if ('revisionId' in ref) {
    const match = FEATURE_REVISION_ID.exec(ref.revisionId);
    if (!match) throw new InvalidInputError(`${field} [revisionId] ${ref.revisionId} is not a feature revision id (frev_<version>_<featureId>)`);
    return { id: match[2]!, featureId: match[2]!, version: Number(match[1]) };
  }
  return { id: ref.id, featureId: ref.id, version: ref.version };
}

/** A blocking gate of GrowthBook's shape for one item. */
const gateOf = (ref: FeatureRef, type: string, message: string): PublishGate => ({
  entityType: 'feature',
  id: ref.id,
  version: ref.version,
  type,
  severity: 'blocker',
  messages: [message],
  override: null,
  requiresPermission: null,
  resolution:
    type === 'merge-conflict' ? { action: 'rebase', method: 'POST', path: `/v2/features/${ref.featureId}/revisions/${ref.version}/rebase` } : null,
});

/** What stops an item, as GrowthBook names the gate; undefined for an error that is no item's problem (a store failure). */
function gateFor(ref: FeatureRef, error: unknown): PublishGate | undefined {
  if (error instanceof NotFoundError) return gateOf(ref, 'not-found', error.message);
  if (error instanceof ForbiddenError)
    return gateOf(ref, 'permission-denied', `You do not have permission to publish Feature "${ref.id}": ${error.message}`);
  if (error instanceof UnresolvedConflictError && error.details?.conflicts) return gateOf(ref, 'merge-conflict', error.message);
  if (error instanceof InvalidInputError) {
    return gateOf(ref, /^Cannot publish a revision with status/.test(error.message) ? 'revision-closed' : 'plan-failed', error.message);
  }
  return undefined;
}

export async function postReleasePublishRevisions({
  auth,
  body,
}: UseCaseInput<typeof contract.postReleasePublishRevisions>): UseCaseOutput<typeof contract.postReleasePublishRevisions> {
  const refs = body.revisions.map(featureRef);
  const seen = new Set<string>();
  for (const ref of refs) {
    if (seen.has(ref.featureId)) throw new InvalidInputError(`Duplicate entity in request: feature:${ref.featureId} — one revision per entity`);
    seen.add(ref.featureId);
  }
  const bulkPublishId = newId('pub_');
  const author = authorOf(auth, body.comment ?? '');
  return retryOnConflict(async () => {
    const [all, approvals, currents] = await Promise.all([
      environmentStore.all(auth.orgId),
      approvalSettings(auth.orgId),
      Promise.all(refs.map((ref) => features.read(auth.orgId, ref.featureId))),
    ]);
    const ids = all.map((environment) => environment.id);
    // Each feature is decided on its own, all at once; gates and results keep the request's order.
    const decisions = await Promise.all(
      refs.map(async (ref, i): Promise<{ gate: PublishGate } | { planned: { ref: FeatureRef; change: FeatureChange; also: Decision['also'] } }> => {
        const current = currents[i];
        if (!current) return { gate: gateOf(ref, 'not-found', `Feature "${ref.id}" not found`) };
        try {
          const decide = (live: typeof current.entity, environmentIds: string[]) =>
            decidePublish(auth, live, environmentIds, ref.version, { bulkPublishId });
          const { change, also } = await decideLiveChange(auth, current, all, decide, author, approvals);
          if (!change) return { gate: gateOf(ref, 'plan-failed', 'Cannot publish: no changes detected in this revision') };
          return { planned: { ref, change, also } };
        } catch (error) {
          const gate = gateFor(ref, error);
          if (!gate) throw error;
          return { gate };
        }
      }),
    );
    const gates = decisions.flatMap((decision) => ('gate' in decision ? [decision.gate] : []));
    const planned = decisions.flatMap((decision) => ('planned' in decision ? [decision.planned] : []));
    const results = (status: 'published' | 'would-publish') =>
      planned.map(({ ref }) => ({
        entityType: 'feature' as const,
        id: ref.id,
        version: ref.version,
        revisionId: revisionId(ref.featureId, ref.version),
        status,
      }));
    if (body.dryRun) return { dryRun: true, results: results('would-publish'), gates, bypassedGates: [], warnings: [] };
    if (gates.length) throw new PublishBlockedError(gates);
    // One call for every feature: items they share (a payload shard's version) are written once.
    const { features: written, ops } = await prepareFeatureChanges(
      auth.orgId,
      planned.map(({ change }) => change),
      { parents: environmentParents(all) },
    );
    const transaction = [...ops, ...planned.flatMap(({ also }, i) => also?.(written[i]!) ?? [])];
    if (transaction.length > TRANSACTION_MAX_ITEMS) {
      throw new InvalidInputError(
        `Request body: [revisions] this release writes ${transaction.length} items, more than the ${TRANSACTION_MAX_ITEMS} one DynamoDB transaction holds; publish fewer revisions together`,
      );
    }
    await transact(transaction);
    return { dryRun: false, bulkPublishId, results: results('published'), gates: [], bypassedGates: [], warnings: [] };
  });
}
