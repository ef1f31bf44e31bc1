import { logger } from '../logger';
import type { Principal } from '../permissions';
import { authorOf } from '../domain/features';
import { armerOf } from './scheduled-publish';

/**
 * GrowthBook's publish on approval (its "auto-merge"), for feature and saved-group drafts alike: a review
 * request may arm the draft (when the draft's approval rule sets `autopublishOnApproval` and the caller may
 * publish it; otherwise the request is taken unarmed, as GrowthBook takes it), and the approval that leaves
 * it approved then publishes it in the same request, as the one who armed it, through the family's one
 * publish path. A publish that cannot happen (a gate such as a required approver team, a conflict, the
 * armer's authority gone) leaves the approval standing and the draft approved and still armed, for a later
 * approval or a manual publish, as GrowthBook leaves it.
 */

/** The fields that arm a draft: armed, by whom, and the key they used (read again when it fires, so lost authority is lost for the publish too). */
export const armedBy = (auth: Principal) => ({
  autoPublishOnApproval: true as const,
  autoPublishEnabledBy: authorOf(auth, '').by,
  scheduledPublishKeyId: auth.keyId,
});

/** The fields of a draft this module reads. */
interface Armable {
  status: string;
  autoPublishOnApproval?: boolean;
  scheduledPublishAt?: string;
  scheduledPublishKeyId?: string;
}

/** A draft armed by a review request that a new request leaves unarmed: without the arming fields (a dated schedule keeps its own). */
export function disarmed<T extends Armable & { autoPublishEnabledBy?: string }>(revision: T): T {
  if (!revision.autoPublishOnApproval || revision.scheduledPublishAt) return revision;
  const { autoPublishOnApproval: _armed, autoPublishEnabledBy: _by, scheduledPublishKeyId: _key, ...rest } = revision;
  return rest as T;
}

/**
 * Publishes a draft an approval just wrote, when it is armed and approved, as its armer through `publish`
 * (the family's publish path). Answers whether it was published; undefined when nothing was to be done: not
 * armed, not approved (still blocked by another reviewer's request for changes), or armed by a dated
 * schedule, which publishes at its date (GrowthBook defers to its scheduler then too).
 */
export async function publishOnApproval(
  orgId: string,
  revision: Armable,
  publish: (armer: Principal) => Promise<unknown>,
  context: Record<string, unknown>,
): Promise<boolean | undefined> {
  if (!revision.autoPublishOnApproval || revision.scheduledPublishAt || revision.status !== 'approved') return undefined;
  try {
    await publish(await armerOf(orgId, revision));
    return true;
  } catch (error) {
    // The approval is written already and stands: the draft stays approved and armed.
    logger.warn('An approved draft armed to publish on approval could not be published', { orgId, ...context, reason: (error as Error).message });
    return false;
  }
}
