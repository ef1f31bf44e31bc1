import { endpoint } from '../../shared/api/endpoint';
import { putSdkConnection } from '../../shared/contracts/sdk-connections';
import * as sdkConnections from '../../shared/use-cases/sdk-connections';

export const handler = endpoint(putSdkConnection, sdkConnections.putSdkConnection);
