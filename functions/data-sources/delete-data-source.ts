import { endpoint } from '../../shared/api/endpoint';
import { deleteDataSource } from '../../shared/contracts/data-sources';
import * as dataSources from '../../shared/use-cases/data-sources';

export const handler = endpoint(deleteDataSource, dataSources.deleteDataSource);
