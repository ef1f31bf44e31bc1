import type { TransactionOp } from '../db/repository';
import { presentSavedGroupRevision, type StoredSavedGroupRevision } from '../domain/saved-group-revisions';
import { newEvent, prepareEvent } from '../store/events';

/**
 * GrowthBook's `savedGroup.revision.*` events (its notification events of the `savedGroup`
 * resource), written in the transaction of the change they report, so an event exists exactly when
 * its change does. The payload is the revision as the API shows it, with the event's own fields.
 */

/** The revision events GrowthBook defines for saved groups. */
export type SavedGroupRevisionEventName =
  | 'created'
  | 'updated'
  | 'reviewRequested'
  | 'approved'
  | 'changesRequested'
  | 'commented'
  | 'rebased'
  | 'published'
  | 'publishFailed'
  | 'discarded'
  | 'reopened'
  | 'reverted';

/**
 * The write of one `savedGroup.revision.<name>` event about `revision`. Saved groups have no
 * environments; its projects are the group's and the ones the draft moves it to, as GrowthBook
 * routes it. `extra` holds the event's own fields (`failureReason`, `bulkPublishId`, ...).
 */
export function prepareSavedGroupRevisionEvent(
  orgId: string,
  name: SavedGroupRevisionEventName,
  revision: StoredSavedGroupRevision,
  extra: Record<string, unknown> = {},
): TransactionOp {
  const projects = [...new Set([...(revision.base.projects ?? []), ...(revision.proposed.projects ?? [])])];
  const object = { ...presentSavedGroupRevision(revision), ...extra };
  return prepareEvent(
    newEvent(orgId, `savedGroup.revision.${name}`, { type: 'savedGroup', id: revision.savedGroupId }, { object }, { environments: [], projects, tags: [] }),
  );
}
