import { endpoint } from '../../shared/api/endpoint';
import { updateDataSource } from '../../shared/contracts/data-sources';
import * as dataSources from '../../shared/use-cases/data-sources';

export const handler = endpoint(updateDataSource, dataSources.updateDataSource);
