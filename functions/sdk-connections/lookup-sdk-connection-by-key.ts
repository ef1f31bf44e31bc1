import { NotFoundError } from '../../shared/errors';
import { endpoint } from '../../shared/api/endpoint';
import { lookupSdkConnectionByKey } from '../../shared/contracts/sdk-connections';
import { findSdkKey, sdkConnections } from '../../shared/store/sdk-connections';

export const handler = endpoint(lookupSdkConnectionByKey, async ({ params, auth }) => {
  const found = await findSdkKey(params.key);
  if (!found || found.orgId !== auth.orgId) throw new NotFoundError(`SDK connection with key ${params.key} not found`);
  return { sdkConnection: await sdkConnections.get(auth.orgId, found.connectionId) };
});
