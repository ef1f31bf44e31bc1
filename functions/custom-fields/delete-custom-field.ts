import { endpoint } from '../../shared/api/endpoint';
import { deleteCustomField } from '../../shared/contracts/custom-fields';
import { customFields } from '../../shared/store/custom-fields';

export const handler = endpoint(deleteCustomField, async ({ params, auth }) => {
  await customFields.remove(auth.orgId, params.id);
  return { deletedId: params.id };
});
