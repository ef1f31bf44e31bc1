import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteAttribute } from '../../shared/contracts/attributes';
import { attributes } from '../../shared/store/attributes';
import { touchSdkPayloads } from '../../shared/store/sdk-payloads';

export const handler = endpoint(deleteAttribute, async ({ params, auth }) => {
  await attributes.remove(auth.orgId, params.property, (attribute) => assertCan(auth, deleteAttribute.permission, attribute.projects));
  await touchSdkPayloads(auth.orgId);
  return { deletedProperty: params.property };
});
