import { endpoint } from '../../shared/api/endpoint';
import { updateCustomField } from '../../shared/contracts/custom-fields';
import { assertCustomFieldProjects, customFields } from '../../shared/store/custom-fields';

export const handler = endpoint(updateCustomField, async ({ params, body, auth }) => {
  const customField = await customFields.update(auth.orgId, params.id, async (current) => {
    await assertCustomFieldProjects(auth.orgId, body.projects);
    return { ...current, ...body };
  });
  return { customField };
});
