import { endpoint } from '../../shared/api/endpoint';
import { updateFactTableFilter } from '../../shared/contracts/fact-tables';
import * as factTables from '../../shared/use-cases/fact-tables';

export const handler = endpoint(updateFactTableFilter, factTables.updateFactTableFilter);
