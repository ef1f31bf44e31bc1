import { endpoint } from '../../shared/api/endpoint';
import { putSdkConnection } from '../../shared/contracts/sdk-connections';
import { assertTargetsExist, updateSdkConnection, withSettings } from '../../shared/store/sdk-connections';

export const handler = endpoint(putSdkConnection, async ({ params, body, auth }) => {
  await assertTargetsExist(auth.orgId, body);
  return { sdkConnection: await updateSdkConnection(auth.orgId, params.id, (current) => withSettings(current, body)) };
});
