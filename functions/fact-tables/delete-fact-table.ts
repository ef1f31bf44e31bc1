import { endpoint } from '../../shared/api/endpoint';
import { deleteFactTable } from '../../shared/contracts/fact-tables';
import * as factTables from '../../shared/use-cases/fact-tables';

export const handler = endpoint(deleteFactTable, factTables.deleteFactTable);
