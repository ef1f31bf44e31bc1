import { endpoint } from '../../shared/api/endpoint';
import { deleteSdkConnection } from '../../shared/contracts/sdk-connections';
import * as sdkConnections from '../../shared/use-cases/sdk-connections';

export const handler = endpoint(deleteSdkConnection, sdkConnections.deleteSdkConnection);
