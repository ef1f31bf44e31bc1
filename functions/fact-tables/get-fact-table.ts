import { endpoint } from '../../shared/api/endpoint';
import { getFactTable } from '../../shared/contracts/fact-tables';
import * as factTables from '../../shared/use-cases/fact-tables';

export const handler = endpoint(getFactTable, factTables.getFactTable);
