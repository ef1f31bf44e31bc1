import { endpoint } from '../../shared/api/endpoint';
import { deleteDimension } from '../../shared/contracts/dimensions';
import { dimensions } from '../../shared/store/dimensions';

export const handler = endpoint(deleteDimension, async ({ params, auth }) => {
  await dimensions.remove(auth.orgId, params.id);
  return { deletedId: params.id };
});
