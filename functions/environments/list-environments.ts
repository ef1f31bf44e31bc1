import { endpoint } from '../../shared/api/endpoint';
import { listEnvironments } from '../../shared/contracts/environments';
import { environments, publicEnvironment } from '../../shared/store/environments';

export const handler = endpoint(listEnvironments, async ({ auth }) => ({
  environments: (await environments.all(auth.orgId)).map(publicEnvironment),
}));
