import { endpoint } from '../../shared/api/endpoint';
import { postFactTableFilter } from '../../shared/contracts/fact-tables';
import * as factTables from '../../shared/use-cases/fact-tables';

export const handler = endpoint(postFactTableFilter, factTables.postFactTableFilter);
