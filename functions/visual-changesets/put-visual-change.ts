import { endpoint } from '../../shared/api/endpoint';
import { NotFoundError } from '../../shared/errors';
import { assertCan } from '../../shared/permissions';
import { putVisualChange } from '../../shared/contracts/visual-changesets';
import { contentChanged, patchVisualChange } from '../../shared/domain/visual-changesets';
import { experiments } from '../../shared/store/experiments';
import { visualChangesets } from '../../shared/store/visual-changesets';

export const handler = endpoint(putVisualChange, async ({ params, body, auth }) => {
  let nModified = 0;
  await visualChangesets.update(auth.orgId, params.id, async (current) => {
    const index = current.visualChanges.findIndex((c) => c.id === params.visualChangeId);
    if (index < 0) throw new NotFoundError(`Visual change ${params.visualChangeId} not found in visual changeset ${current.id}`);
    const experiment = await experiments.get(auth.orgId, current.experiment);
    assertCan(auth, putVisualChange.permission, experiment.project ? [experiment.project] : []);
    const visualChanges = current.visualChanges.with(index, patchVisualChange(current.visualChanges[index], body, experiment));
    const next = { ...current, visualChanges };
    nModified = contentChanged(current, next) ? 1 : 0;
    return next;
  });
  return { nModified };
});
