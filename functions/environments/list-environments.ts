import { endpoint } from '../../shared/api/endpoint';
import { listEnvironments } from '../../shared/contracts/environments';
import * as environments from '../../shared/use-cases/environments';

export const handler = endpoint(listEnvironments, environments.listEnvironments);
