import { endpoint } from '../../shared/api/endpoint';
import { ConflictError } from '../../shared/errors';
import { assertCan } from '../../shared/permissions';
import { postVisualChange } from '../../shared/contracts/visual-changesets';
import { buildVisualChange } from '../../shared/domain/visual-changesets';
import { experiments } from '../../shared/store/experiments';
import { visualChangesets } from '../../shared/store/visual-changesets';

export const handler = endpoint(postVisualChange, async ({ params, body, auth }) => {
  const changeset = await visualChangesets.update(auth.orgId, params.id, async (current) => {
    const experiment = await experiments.get(auth.orgId, current.experiment);
    assertCan(auth, postVisualChange.permission, experiment.project ? [experiment.project] : []);
    const change = buildVisualChange(body, experiment);
    if (current.visualChanges.some((c) => c.id === change.id)) {
      throw new ConflictError('already_exists', `Visual change ${change.id} already exists in visual changeset ${current.id}`);
    }
    return { ...current, visualChanges: [...current.visualChanges, change] };
  });
  // The new change is the one appended last.
  return { nModified: 1, visualChangeId: changeset.visualChanges.at(-1)!.id };
});
