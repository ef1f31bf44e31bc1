import { endpoint } from '../../shared/api/endpoint';
import { createCustomField } from '../../shared/contracts/custom-fields';
import { assertCustomFieldProjects, customFields } from '../../shared/store/custom-fields';

export const handler = endpoint(createCustomField, async ({ body, auth }) => {
  await assertCustomFieldProjects(auth.orgId, body.projects);
  const customField = await customFields.create(auth.orgId, { ...body, active: true, ...(auth.memberId ? { creator: auth.memberId } : {}) });
  return { customField };
});
