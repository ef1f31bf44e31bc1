import { endpoint } from '../../shared/api/endpoint';
import { getSdkConnection } from '../../shared/contracts/sdk-connections';
import * as sdkConnections from '../../shared/use-cases/sdk-connections';

export const handler = endpoint(getSdkConnection, sdkConnections.getSdkConnection);
