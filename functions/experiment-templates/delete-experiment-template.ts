import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteExperimentTemplate } from '../../shared/contracts/experiment-templates';
import { experimentTemplates } from '../../shared/store/experiment-templates';

export const handler = endpoint(deleteExperimentTemplate, async ({ params, auth }) => {
  await experimentTemplates.remove(auth.orgId, params.id, (template) =>
    assertCan(auth, deleteExperimentTemplate.permission, template.project ? [template.project] : []),
  );
  return { deletedId: params.id };
});
