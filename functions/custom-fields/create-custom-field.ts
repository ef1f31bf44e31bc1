import { endpoint } from '../../shared/api/endpoint';
import { createCustomField } from '../../shared/contracts/custom-fields';
import * as customFields from '../../shared/use-cases/custom-fields';

export const handler = endpoint(createCustomField, customFields.createCustomField);
