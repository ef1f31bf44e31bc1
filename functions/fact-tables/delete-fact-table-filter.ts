import { endpoint } from '../../shared/api/endpoint';
import { deleteFactTableFilter } from '../../shared/contracts/fact-tables';
import * as factTables from '../../shared/use-cases/fact-tables';

export const handler = endpoint(deleteFactTableFilter, factTables.deleteFactTableFilter);
