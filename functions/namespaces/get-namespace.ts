import { endpoint } from '../../shared/api/endpoint';
import { getNamespace } from '../../shared/contracts/namespaces';
import * as namespaces from '../../shared/use-cases/namespaces';

export const handler = endpoint(getNamespace, namespaces.getNamespace);
