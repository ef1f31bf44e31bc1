import { endpoint } from '../../shared/api/endpoint';
import { putNamespace } from '../../shared/contracts/namespaces';
import * as namespaces from '../../shared/use-cases/namespaces';

export const handler = endpoint(putNamespace, namespaces.putNamespace);
