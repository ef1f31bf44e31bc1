import * as contract from '../contracts/experiment-templates';
import { allInOrder } from '../concurrency';
import { TEMPLATE_ID_PREFIX } from '../contracts/experiment-templates';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { transact } from '../db/repository';
import { normalizeTemplateId, planImport } from '../domain/experiment-templates';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { assertTemplateReferences, experimentTemplates, templateOwner } from '../store/experiment-templates';
import { projectOf, readableBy, readableOr404 } from './read-access';

/** DynamoDB's limit of items in one transaction. */
const TRANSACTION_ITEMS = 100;

/** `POST /experiment-templates/bulk-import`: create or update many experiment templates at once. */
export async function bulkImportExperimentTemplates({
  body,
  auth,
}: UseCaseInput<typeof contract.bulkImportExperimentTemplates>): UseCaseOutput<typeof contract.bulkImportExperimentTemplates> {
  // Everything is checked before anything is written.
  const ids = [...new Set(body.templates.map((t) => normalizeTemplateId(t.id)))];
  const [, existing] = await allInOrder([
    allInOrder(body.templates.map(({ data }, i) => assertTemplateReferences(auth.orgId, data, data, `templates.${i}.data.`))),
    experimentTemplates.readMany(auth.orgId, ids),
  ]);
  const current = new Map(existing.map((found) => [found.entity.id, found]));
  const plan = planImport(body.templates, new Set(current.keys()));
  const owner = await templateOwner(auth);
  const ops = plan.items.map(({ id, data }) => {
    const existing = current.get(id);
    assertCan(
      auth,
      contract.bulkImportExperimentTemplates.permission,
      [existing?.entity.project, data.project].flatMap((p) => (p ? [p] : [])),
    );
    return existing
      ? experimentTemplates.prepareUpdate(auth.orgId, existing, { ...existing.entity, ...data })
      : experimentTemplates.prepareCreate(auth.orgId, { ...data, id, ...owner });
  });
  for (let start = 0; start < ops.length; start += TRANSACTION_ITEMS) await transact(ops.slice(start, start + TRANSACTION_ITEMS));
  return { added: plan.added, updated: plan.updated };
}

/** `POST /experiment-templates`: create an experiment template. */
export async function createExperimentTemplate({
  body,
  auth,
}: UseCaseInput<typeof contract.createExperimentTemplate>): UseCaseOutput<typeof contract.createExperimentTemplate> {
  assertCan(auth, contract.createExperimentTemplate.permission, body.project ? [body.project] : []);
  await assertTemplateReferences(auth.orgId, body, body);
  const experimentTemplate = await experimentTemplates.create(auth.orgId, {
    ...body,
    id: newId(TEMPLATE_ID_PREFIX),
    ...(await templateOwner(auth)),
  });
  return { experimentTemplate };
}

/** `DELETE /experiment-templates/{id}`: delete an experiment template. */
export async function deleteExperimentTemplate({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteExperimentTemplate>): UseCaseOutput<typeof contract.deleteExperimentTemplate> {
  await experimentTemplates.remove(auth.orgId, params.id, (template) =>
    assertCan(auth, contract.deleteExperimentTemplate.permission, template.project ? [template.project] : []),
  );
  return { deletedId: params.id };
}

/** `GET /experiment-templates/{id}`: get an experiment template. */
export async function getExperimentTemplate({
  params,
  auth,
}: UseCaseInput<typeof contract.getExperimentTemplate>): UseCaseOutput<typeof contract.getExperimentTemplate> {
  const template = await experimentTemplates.get(auth.orgId, params.id);
  return { experimentTemplate: readableOr404(auth, template, projectOf(template), 'Experiment template', params.id) };
}

/** `GET /experiment-templates`: list experiment templates. */
export async function listExperimentTemplates({
  query,
  auth,
}: UseCaseInput<typeof contract.listExperimentTemplates>): UseCaseOutput<typeof contract.listExperimentTemplates> {
  const all = readableBy(auth, await experimentTemplates.all(auth.orgId), projectOf);
  return { experimentTemplates: query.projectId ? all.filter((t) => t.project === query.projectId) : all };
}

/** `PUT /experiment-templates/{id}`: partially update an experiment template. */
export async function updateExperimentTemplate({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateExperimentTemplate>): UseCaseOutput<typeof contract.updateExperimentTemplate> {
  const experimentTemplate = await experimentTemplates.update(auth.orgId, params.id, async (current) => {
    assertCan(auth, contract.updateExperimentTemplate.permission, current.project ? [current.project] : []);
    // `""` moves it out of its project: that needs the permission where it lands, outside any project (as GrowthBook).
    if (body.project !== undefined) assertCan(auth, contract.updateExperimentTemplate.permission, body.project ? [body.project] : []);
    const next = { ...current, ...body };
    await assertTemplateReferences(auth.orgId, body, next);
    return next;
  });
  return { experimentTemplate };
}
