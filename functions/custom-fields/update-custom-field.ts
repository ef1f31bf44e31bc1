import { endpoint } from '../../shared/api/endpoint';
import { updateCustomField } from '../../shared/contracts/custom-fields';
import * as customFields from '../../shared/use-cases/custom-fields';

export const handler = endpoint(updateCustomField, customFields.updateCustomField);
