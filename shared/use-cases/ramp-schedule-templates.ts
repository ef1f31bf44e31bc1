import * as contract from '../contracts/ramp-schedule-templates';
import { RAMP_TEMPLATE_ID_PREFIX, type RampScheduleTemplate } from '../contracts/ramp-schedule-templates';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { newId } from '../ids';
import { rampScheduleTemplates } from '../store/ramp-schedule-templates';

/** GrowthBook's display order: `order` ascending, ties by creation. */
const byOrder = (a: RampScheduleTemplate, b: RampScheduleTemplate) => a.order - b.order || a.dateCreated.localeCompare(b.dateCreated);

/** `GET /ramp-schedule-templates`: every template of the organization, in display order. */
export async function listRampScheduleTemplates({
  auth,
}: UseCaseInput<typeof contract.listRampScheduleTemplates>): UseCaseOutput<typeof contract.listRampScheduleTemplates> {
  return { rampScheduleTemplates: (await rampScheduleTemplates.all(auth.orgId)).sort(byOrder) };
}

/** `POST /ramp-schedule-templates`: a new template, last in the order unless `order` is given (as GrowthBook's REST create). */
export async function createRampScheduleTemplate({
  body,
  auth,
}: UseCaseInput<typeof contract.createRampScheduleTemplate>): UseCaseOutput<typeof contract.createRampScheduleTemplate> {
  const order = body.order ?? (await rampScheduleTemplates.all(auth.orgId)).reduce((max, template) => Math.max(max, template.order), -1) + 1;
  const rampScheduleTemplate = await rampScheduleTemplates.create(auth.orgId, { ...body, id: newId(RAMP_TEMPLATE_ID_PREFIX), order });
  return { rampScheduleTemplate };
}

/** `GET /ramp-schedule-templates/{id}`: one template. */
export async function getRampScheduleTemplate({
  params,
  auth,
}: UseCaseInput<typeof contract.getRampScheduleTemplate>): UseCaseOutput<typeof contract.getRampScheduleTemplate> {
  return { rampScheduleTemplate: await rampScheduleTemplates.get(auth.orgId, params.id) };
}

/** `PUT /ramp-schedule-templates/{id}`: the fields given replace the template's; the others stay. */
export async function updateRampScheduleTemplate({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateRampScheduleTemplate>): UseCaseOutput<typeof contract.updateRampScheduleTemplate> {
  const rampScheduleTemplate = await rampScheduleTemplates.update(auth.orgId, params.id, (current) => ({ ...current, ...body }));
  return { rampScheduleTemplate };
}

/** `DELETE /ramp-schedule-templates/{id}`: the template goes; ramps made from it keep what they took. */
export async function deleteRampScheduleTemplate({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteRampScheduleTemplate>): UseCaseOutput<typeof contract.deleteRampScheduleTemplate> {
  await rampScheduleTemplates.remove(auth.orgId, params.id);
  return { deletedId: params.id };
}
