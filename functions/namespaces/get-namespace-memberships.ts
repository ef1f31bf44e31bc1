import { endpoint } from '../../shared/api/endpoint';
import { getNamespaceMemberships } from '../../shared/contracts/namespaces';
import * as namespaces from '../../shared/use-cases/namespaces';

export const handler = endpoint(getNamespaceMemberships, namespaces.getNamespaceMemberships);
