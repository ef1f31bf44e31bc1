import { endpoint } from '../../shared/api/endpoint';
import { postFactTableVirtualColumn } from '../../shared/contracts/fact-table-virtual-columns';
import * as virtualColumns from '../../shared/use-cases/fact-table-virtual-columns';

export const handler = endpoint(postFactTableVirtualColumn, virtualColumns.postFactTableVirtualColumn);
