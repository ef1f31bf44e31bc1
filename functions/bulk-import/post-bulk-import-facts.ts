import { endpoint } from '../../shared/api/endpoint';
import { postBulkImportFacts } from '../../shared/contracts/bulk-import';
import * as bulkImport from '../../shared/use-cases/bulk-import';

export const handler = endpoint(postBulkImportFacts, bulkImport.postBulkImportFacts);
