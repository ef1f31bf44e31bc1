import { endpoint } from '../../shared/api/endpoint';
import { deleteEnvironment } from '../../shared/contracts/environments';
import * as environments from '../../shared/use-cases/environments';

export const handler = endpoint(deleteEnvironment, environments.deleteEnvironment);
