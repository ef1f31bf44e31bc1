import { endpoint } from '../../shared/api/endpoint';
import { getDataSource } from '../../shared/contracts/data-sources';
import * as dataSources from '../../shared/use-cases/data-sources';

export const handler = endpoint(getDataSource, dataSources.getDataSource);
