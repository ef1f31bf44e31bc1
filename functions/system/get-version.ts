import { endpoint } from '../../shared/api/endpoint';
import { currentBuild, SERVICE_VERSION } from '../../shared/build';
import { getVersion } from '../../shared/contracts/system';

export const handler = endpoint(getVersion, async () => ({ version: SERVICE_VERSION, apiVersion: 1 as const, build: currentBuild() }));
