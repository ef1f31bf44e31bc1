import { endpoint } from '../../shared/api/endpoint';
import { listCustomFields } from '../../shared/contracts/custom-fields';
import { customFields } from '../../shared/store/custom-fields';

export const handler = endpoint(listCustomFields, async ({ query, auth }) => {
  const all = await customFields.all(auth.orgId);
  // A field limited to no project applies to every project.
  const project = query.projectId;
  return project ? all.filter((field) => !field.projects?.length || field.projects.includes(project)) : all;
});
