import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { putVisualChangeset } from '../../shared/contracts/visual-changesets';
import {
  assertUrlPatterns,
  contentChanged,
  replaceVisualChanges,
  visualChangesetView,
} from '../../shared/domain/visual-changesets';
import { experiments } from '../../shared/store/experiments';
import { visualChangesets } from '../../shared/store/visual-changesets';

export const handler = endpoint(putVisualChangeset, async ({ params, body, auth }) => {
  if (body.urlPatterns) assertUrlPatterns(body.urlPatterns);
  let nModified = 0;
  const changeset = await visualChangesets.update(auth.orgId, params.id, async (current) => {
    const experiment = await experiments.get(auth.orgId, current.experiment);
    assertCan(auth, putVisualChangeset.permission, experiment.project ? [experiment.project] : []);
    const next = {
      ...current,
      ...(body.editorUrl !== undefined ? { editorUrl: body.editorUrl } : {}),
      ...(body.urlPatterns ? { urlPatterns: body.urlPatterns } : {}),
      ...(body.visualChanges ? { visualChanges: replaceVisualChanges(body.visualChanges, experiment) } : {}),
    };
    nModified = contentChanged(current, next) ? 1 : 0;
    return next;
  });
  return { nModified, visualChangeset: visualChangesetView(changeset) };
});
