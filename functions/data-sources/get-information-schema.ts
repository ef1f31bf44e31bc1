import { endpoint } from '../../shared/api/endpoint';
import { getInformationSchema } from '../../shared/contracts/information-schema';
import * as schema from '../../shared/use-cases/information-schema';

export const handler = endpoint(getInformationSchema, schema.getInformationSchema);
