import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateExperimentTemplate } from '../../shared/contracts/experiment-templates';
import { assertTemplateReferences, experimentTemplates } from '../../shared/store/experiment-templates';

export const handler = endpoint(updateExperimentTemplate, async ({ params, body, auth }) => {
  const experimentTemplate = await experimentTemplates.update(auth.orgId, params.id, async (current) => {
    assertCan(auth, updateExperimentTemplate.permission, current.project ? [current.project] : []);
    if (body.project) assertCan(auth, updateExperimentTemplate.permission, [body.project]);
    const next = { ...current, ...body };
    await assertTemplateReferences(auth.orgId, body, next);
    return next;
  });
  return { experimentTemplate };
});
