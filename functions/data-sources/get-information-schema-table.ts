import { endpoint } from '../../shared/api/endpoint';
import { getInformationSchemaTable } from '../../shared/contracts/information-schema';
import * as schema from '../../shared/use-cases/information-schema';

export const handler = endpoint(getInformationSchemaTable, schema.getInformationSchemaTable);
