import { endpoint } from '../../shared/api/endpoint';
import { getQuery } from '../../shared/contracts/queries';
import * as queries from '../../shared/use-cases/queries';

export const handler = endpoint(getQuery, queries.getQuery);
