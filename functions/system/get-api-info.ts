import { endpoint } from '../../shared/api/endpoint';
import { currentBuild } from '../../shared/build';
import { getApiInfo } from '../../shared/contracts/system';

export const handler = endpoint(getApiInfo, async () => ({ name: 'Switchyard API', apiVersion: 1 as const, build: currentBuild() }));
