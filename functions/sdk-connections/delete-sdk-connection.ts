import { endpoint } from '../../shared/api/endpoint';
import { deleteSdkConnection } from '../../shared/contracts/sdk-connections';
import { deleteSdkConnection as removeSdkConnection } from '../../shared/store/sdk-connections';

export const handler = endpoint(deleteSdkConnection, async ({ params, auth }) => {
  await removeSdkConnection(auth.orgId, params.id);
  return { deletedId: params.id };
});
