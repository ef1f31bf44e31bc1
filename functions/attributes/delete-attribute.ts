import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteAttribute } from '../../shared/contracts/attributes';
import { attributes } from '../../shared/store/attributes';

export const handler = endpoint(deleteAttribute, async ({ params, auth }) => {
  await attributes.remove(auth.orgId, params.property, (attribute) => assertCan(auth, deleteAttribute.permission, attribute.projects));
  return { deletedProperty: params.property };
});
