import { endpoint } from '../../shared/api/endpoint';
import { postNamespaceRotateSeed } from '../../shared/contracts/namespaces';
import * as namespaces from '../../shared/use-cases/namespaces';

export const handler = endpoint(postNamespaceRotateSeed, namespaces.postNamespaceRotateSeed);
