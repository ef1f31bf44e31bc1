import * as contract from '../contracts/saved-groups';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { withOwner } from '../domain/owner';
import { paginated } from '../domain/pagination';
import { ID_LIST_DATATYPES, assertFitsType, savedGroupDefinition } from '../domain/saved-groups';
import { InvalidInputError } from '../errors';
import { newId } from '../ids';
import { assertCan, readsEverywhere } from '../permissions';
import { attributes } from '../store/attributes';
import { ownerForCreate, resolveOwner } from '../store/members';
import { assertProjectsExist } from '../store/projects';
import { savedGroups } from '../store/saved-groups';
import { approvalSettings } from './approvals';
import { readableOr404, readablePage } from './read-access';
import { assertDirectGroupChange } from './saved-group-revisions';

/**
 * A list group matches one attribute by id, so a defined attribute must have an id-like type (as in
 * GrowthBook). An undefined one is accepted: organizations here start without GrowthBook's default attributes.
 */
async function assertIdListAttribute(orgId: string, key: string | undefined): Promise<void> {
  if (key === undefined) return;
  const attribute = await attributes.find(orgId, key);
  if (attribute && !ID_LIST_DATATYPES.includes(attribute.datatype)) {
    throw new InvalidInputError(
      `Request body: [attributeKey] attribute ${key} is a ${attribute.datatype}; a list group needs a string, number or secureString attribute`,
    );
  }
}

/** `DELETE /saved-groups/{id}`: delete a saved group. */
export async function deleteSavedGroup({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteSavedGroup>): UseCaseOutput<typeof contract.deleteSavedGroup> {
  await savedGroups.remove(auth.orgId, params.id, (group) => assertCan(auth, contract.deleteSavedGroup.permission, group.projects));
  return { deletedId: params.id };
}

/** `GET /saved-groups/{id}`: get a saved group. */
export async function getSavedGroup({ params, auth }: UseCaseInput<typeof contract.getSavedGroup>): UseCaseOutput<typeof contract.getSavedGroup> {
  const group = await savedGroups.get(auth.orgId, params.id);
  return { savedGroup: readableOr404(auth, group, group.projects ?? [], 'Saved group', params.id) };
}

/** `GET /saved-groups`: list saved groups. */
export async function listSavedGroups({
  query,
  auth,
}: UseCaseInput<typeof contract.listSavedGroups>): UseCaseOutput<typeof contract.listSavedGroups> {
  // Saved groups carry no project list tags: a caller who may not read every project gets the whole list filtered.
  const page = readsEverywhere(auth)
    ? await savedGroups.list(auth.orgId, query)
    : readablePage(auth, await savedGroups.all(auth.orgId), (group) => group.projects ?? [], query);
  return paginated('savedGroups', page, query);
}

/** `POST /saved-groups`: create a saved group. */
export async function postSavedGroup({ body, auth }: UseCaseInput<typeof contract.postSavedGroup>): UseCaseOutput<typeof contract.postSavedGroup> {
  assertCan(auth, contract.postSavedGroup.permission, body.projects);
  const definition = savedGroupDefinition(body);
  await Promise.all([assertProjectsExist(auth.orgId, body.projects), assertIdListAttribute(auth.orgId, definition.attributeKey)]);
  const owner = await ownerForCreate(auth.orgId, body.owner, auth.memberId);
  const savedGroup = await savedGroups.create(auth.orgId, {
    id: newId('grp_'),
    name: body.name,
    ...definition,
    ...owner,
    description: body.description ?? '',
    projects: body.projects ?? [],
  });
  return { savedGroup };
}

/** `POST /saved-groups/{id}`: partially update a saved group. */
export async function updateSavedGroup({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateSavedGroup>): UseCaseOutput<typeof contract.updateSavedGroup> {
  const { bypassApproval, owner: ownerInput, ...fields } = body;
  const owner = ownerInput !== undefined ? await resolveOwner(auth.orgId, ownerInput) : undefined;
  await assertProjectsExist(auth.orgId, fields.projects);
  // Read beside the group (the update's read), so the approval gate adds no round trip to the critical path.
  const settings = approvalSettings(auth.orgId);
  settings.catch(() => undefined); // awaited in the change; a group that is not there never awaits it
  const savedGroup = await savedGroups.update(auth.orgId, params.id, async (current) => {
    assertCan(auth, contract.updateSavedGroup.permission, current.projects);
    if (fields.projects) assertCan(auth, contract.updateSavedGroup.permission, fields.projects);
    assertFitsType(current, fields);
    const next = withOwner({ ...current, ...fields }, owner);
    assertDirectGroupChange(auth, await settings, { before: current, after: next, bypassApproval });
    return next;
  });
  return { savedGroup };
}
