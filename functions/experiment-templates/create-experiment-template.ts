import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { createExperimentTemplate, TEMPLATE_ID_PREFIX } from '../../shared/contracts/experiment-templates';
import { assertTemplateReferences, experimentTemplates, templateOwner } from '../../shared/store/experiment-templates';
import { newId } from '../../shared/ids';

export const handler = endpoint(createExperimentTemplate, async ({ body, auth }) => {
  assertCan(auth, createExperimentTemplate.permission, body.project ? [body.project] : []);
  await assertTemplateReferences(auth.orgId, body, body);
  const experimentTemplate = await experimentTemplates.create(auth.orgId, {
    ...body,
    id: newId(TEMPLATE_ID_PREFIX),
    ...(await templateOwner(auth)),
  });
  return { experimentTemplate };
});
