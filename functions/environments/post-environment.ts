import { endpoint } from '../../shared/api/endpoint';
import { postEnvironment } from '../../shared/contracts/environments';
import * as environments from '../../shared/use-cases/environments';

export const handler = endpoint(postEnvironment, environments.postEnvironment);
