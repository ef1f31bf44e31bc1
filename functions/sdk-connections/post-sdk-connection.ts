import { endpoint } from '../../shared/api/endpoint';
import { postSdkConnection } from '../../shared/contracts/sdk-connections';
import { assertTargetsExist, createSdkConnection, newSdkConnection } from '../../shared/store/sdk-connections';

export const handler = endpoint(postSdkConnection, async ({ body, auth }) => {
  await assertTargetsExist(auth.orgId, body);
  return { sdkConnection: await createSdkConnection(auth.orgId, newSdkConnection(auth.orgId, body)) };
});
