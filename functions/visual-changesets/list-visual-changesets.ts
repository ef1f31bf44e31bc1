import { allInOrder } from '../../shared/concurrency';
import { endpoint } from '../../shared/api/endpoint';
import { listVisualChangesets } from '../../shared/contracts/visual-changesets';
import { visualChangesetView } from '../../shared/domain/visual-changesets';
import { experiments } from '../../shared/store/experiments';
import { visualChangesetsOf } from '../../shared/store/visual-changesets';

export const handler = endpoint(listVisualChangesets, async ({ params, auth }) => {
  const [, changesets] = await allInOrder([experiments.get(auth.orgId, params.id), visualChangesetsOf(auth.orgId, params.id)]);
  return { visualChangesets: changesets.map(visualChangesetView) };
});
