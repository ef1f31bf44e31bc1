import { endpoint } from '../../shared/api/endpoint';
import { InvalidInputError } from '../../shared/errors';
import { assertCan } from '../../shared/permissions';
import { postExperiment, type PostExperimentBody } from '../../shared/contracts/experiments';
import { newExperiment, phaseReferences, templateDefaults } from '../../shared/domain/experiments';
import { experimentTemplates } from '../../shared/store/experiment-templates';
import { dashboards } from '../../shared/store/dashboards';
import { assertExperimentReferences, assertTrackingKeyFree, experiments } from '../../shared/store/experiments';
import { features } from '../../shared/store/features';
import { ownerForCreate } from '../../shared/store/members';
import { assertReferences } from '../../shared/db/repository';

/** The body with the template's fields filled in where the request leaves them out. */
async function withTemplate(orgId: string, body: PostExperimentBody, now: string): Promise<PostExperimentBody> {
  if (!body.templateId) return body;
  const template = await experimentTemplates.find(orgId, body.templateId);
  if (!template) throw new InvalidInputError(`Request body: [templateId] no experiment template has the id ${body.templateId}`);
  for (const field of ['datasourceId', 'assignmentQueryId'] as const) {
    if (body[field] !== undefined) throw new InvalidInputError(`Request body: [${field}] comes from the template; leave it out when templateId is given`);
  }
  return { ...templateDefaults(template, now), ...body };
}

export const handler = endpoint(postExperiment, async ({ body: input, auth }) => {
  const now = new Date().toISOString();
  const body = await withTemplate(auth.orgId, input, now);
  assertCan(auth, postExperiment.permission, body.project ? [body.project] : []);
  // GrowthBook refuses a new experiment whose owner is not a member.
  const owner = await ownerForCreate(auth.orgId, body.owner, auth.memberId, true);
  const data = newExperiment(body, owner, now);
  await Promise.all([
    assertExperimentReferences(auth.orgId, body, data.settings),
    assertReferences(auth.orgId, features, phaseReferences(body.phases).features),
    assertReferences(auth.orgId, dashboards, body.defaultDashboardId ? [{ field: 'defaultDashboardId', id: body.defaultDashboardId }] : []),
  ]);
  if (!body.bypassDuplicateKeyCheck) await assertTrackingKeyFree(auth.orgId, body.trackingKey);
  const experiment = await experiments.create(auth.orgId, data);
  return { experiment };
});
