import { endpoint } from '../../shared/api/endpoint';
import { getVisualChangeset } from '../../shared/contracts/visual-changesets';
import { visualChangesetView } from '../../shared/domain/visual-changesets';
import { experiments } from '../../shared/store/experiments';
import { visualChangesets } from '../../shared/store/visual-changesets';

export const handler = endpoint(getVisualChangeset, async ({ params, query, auth }) => {
  const changeset = await visualChangesets.get(auth.orgId, params.id);
  const experiment = query.includeExperiment ? await experiments.find(auth.orgId, changeset.experiment) : undefined;
  return { visualChangeset: visualChangesetView(changeset), ...(experiment ? { experiment } : {}) };
});
