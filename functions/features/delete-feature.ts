import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteFeature } from '../../shared/contracts/features';
import { removeFeature } from '../../shared/store/features';

export const handler = endpoint(deleteFeature, async ({ params, auth }) => {
  await removeFeature(auth.orgId, params.id, (feature) => assertCan(auth, deleteFeature.permission, feature.project ? [feature.project] : []));
  return { deletedId: params.id };
});
