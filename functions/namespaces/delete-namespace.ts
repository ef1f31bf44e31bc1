import { endpoint } from '../../shared/api/endpoint';
import { deleteNamespace } from '../../shared/contracts/namespaces';
import * as namespaces from '../../shared/use-cases/namespaces';

export const handler = endpoint(deleteNamespace, namespaces.deleteNamespace);
