import { endpoint } from '../../shared/api/endpoint';
import { listNamespaces } from '../../shared/contracts/namespaces';
import * as namespaces from '../../shared/use-cases/namespaces';

export const handler = endpoint(listNamespaces, namespaces.listNamespaces);
