import { ConflictError } from '../errors';
import { can, type Principal } from '../permissions';
import { locksFeature } from '../domain/ramp-schedule';
import { schedulesControlling } from '../store/ramp-schedules';

/**
 * GrowthBook 5's ramp lockdown (its `assertFeatureNotLockedByRamp`): 409 `invalid_status` when a
 * running ramp schedule with lockdown `locked` controls a rule of the feature. Every write that could
 * change the live feature (v1 update, toggle, revert, a draft's publish) and every experiment start on
 * it passes here. As in GrowthBook's REST API, whoever may bypass approvals on the feature's project
 * pushes a feature write through (its policy: lockdown is a safety gate, not a security boundary), but
 * nobody an experiment start (`bypassable: false`). The ramp's own steps never come here: the schedule
 * writes its rules itself.
 */
export async function assertNotLockedByRamp(auth: Principal, feature: { id: string; project?: string }, bypassable = true): Promise<void> {
  if (bypassable && can(auth, 'bypassApprovalChecks', feature.project ? [feature.project] : [])) return;
  const locking = (await schedulesControlling(auth.orgId, feature.id)).find(locksFeature);
  if (locking) {
    throw new ConflictError(
      'invalid_status',
      `Feature ${feature.id} is locked by an active ramp schedule ("${locking.name}", ${locking.id}). Pause the schedule to make immediate changes.`,
    );
  }
}
