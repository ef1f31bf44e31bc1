import { endpoint } from '../../shared/api/endpoint';
import { putEnvironment } from '../../shared/contracts/environments';
import * as environments from '../../shared/use-cases/environments';

export const handler = endpoint(putEnvironment, environments.putEnvironment);
