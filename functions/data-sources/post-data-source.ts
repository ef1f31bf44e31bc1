import { endpoint } from '../../shared/api/endpoint';
import { postDataSource } from '../../shared/contracts/data-sources';
import * as dataSources from '../../shared/use-cases/data-sources';

export const handler = endpoint(postDataSource, dataSources.postDataSource);
