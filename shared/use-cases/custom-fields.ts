import * as contract from '../contracts/custom-fields';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { assertCustomFieldProjects, customFields } from '../store/custom-fields';

/** `POST /custom-fields`: create a custom field. */
export async function createCustomField({
  body,
  auth,
}: UseCaseInput<typeof contract.createCustomField>): UseCaseOutput<typeof contract.createCustomField> {
  await assertCustomFieldProjects(auth.orgId, body.projects);
  const customField = await customFields.create(auth.orgId, { ...body, active: true, ...(auth.memberId ? { creator: auth.memberId } : {}) });
  return { customField };
}

/** `DELETE /custom-fields/{id}`: delete a custom field. */
export async function deleteCustomField({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteCustomField>): UseCaseOutput<typeof contract.deleteCustomField> {
  await customFields.remove(auth.orgId, params.id);
  return { deletedId: params.id };
}

/** `GET /custom-fields/{id}`: get a custom field. */
export async function getCustomField({ params, auth }: UseCaseInput<typeof contract.getCustomField>): UseCaseOutput<typeof contract.getCustomField> {
  return { customField: await customFields.get(auth.orgId, params.id) };
}

/** `GET /custom-fields`: list custom fields (with projectId: those of that project and those of every project). */
export async function listCustomFields({
  query,
  auth,
}: UseCaseInput<typeof contract.listCustomFields>): UseCaseOutput<typeof contract.listCustomFields> {
  const all = await customFields.all(auth.orgId);
  // A field limited to no project applies to every project.
  const project = query.projectId;
  return project ? all.filter((field) => !field.projects?.length || field.projects.includes(project)) : all;
}

/** `PUT /custom-fields/{id}`: update a custom field. */
export async function updateCustomField({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateCustomField>): UseCaseOutput<typeof contract.updateCustomField> {
  const customField = await customFields.update(auth.orgId, params.id, async (current) => {
    await assertCustomFieldProjects(auth.orgId, body.projects);
    return { ...current, ...body };
  });
  return { customField };
}
