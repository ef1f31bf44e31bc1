import { endpoint } from '../../shared/api/endpoint';
import { postNamespace } from '../../shared/contracts/namespaces';
import * as namespaces from '../../shared/use-cases/namespaces';

export const handler = endpoint(postNamespace, namespaces.postNamespace);
