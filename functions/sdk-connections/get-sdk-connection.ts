import { endpoint } from '../../shared/api/endpoint';
import { getSdkConnection } from '../../shared/contracts/sdk-connections';
import { sdkConnections } from '../../shared/store/sdk-connections';

export const handler = endpoint(getSdkConnection, async ({ params, auth }) => ({
  sdkConnection: await sdkConnections.get(auth.orgId, params.id),
}));
