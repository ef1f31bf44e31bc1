import { endpoint } from '../../shared/api/endpoint';
import { getCustomField } from '../../shared/contracts/custom-fields';
import { customFields } from '../../shared/store/custom-fields';

export const handler = endpoint(getCustomField, async ({ params, auth }) => ({ customField: await customFields.get(auth.orgId, params.id) }));
