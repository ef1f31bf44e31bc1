import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postVisualChangesets } from '../../shared/contracts/visual-changesets';
import { assertUrlPatterns, emptyVisualChanges, visualChangesetView } from '../../shared/domain/visual-changesets';
import { newId } from '../../shared/ids';
import { createVisualChangeset } from '../../shared/store/visual-changesets';

export const handler = endpoint(postVisualChangesets, async ({ params, body, auth }) => {
  assertUrlPatterns(body.urlPatterns);
  const changeset = await createVisualChangeset(auth.orgId, params.id, (experiment) => {
    assertCan(auth, postVisualChangesets.permission, experiment.project ? [experiment.project] : []);
    return {
      id: newId('vcs_'),
      experiment: experiment.id,
      editorUrl: body.editorUrl,
      urlPatterns: body.urlPatterns,
      visualChanges: emptyVisualChanges(experiment),
    };
  });
  return { visualChangeset: visualChangesetView(changeset) };
});
