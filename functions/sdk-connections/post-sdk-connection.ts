import { endpoint } from '../../shared/api/endpoint';
import { postSdkConnection } from '../../shared/contracts/sdk-connections';
import * as sdkConnections from '../../shared/use-cases/sdk-connections';

export const handler = endpoint(postSdkConnection, sdkConnections.postSdkConnection);
