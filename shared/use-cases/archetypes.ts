import * as contract from '../contracts/archetypes';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { withOwner } from '../domain/owner';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { archetypes } from '../store/archetypes';
import { ownerForCreate, resolveOwner } from '../store/members';
import { assertProjectsExist } from '../store/projects';
import { readableBy, readableOr404 } from './read-access';

/** `DELETE /archetypes/{id}`: delete an archetype. */
export async function deleteArchetype({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteArchetype>): UseCaseOutput<typeof contract.deleteArchetype> {
  await archetypes.remove(auth.orgId, params.id, (archetype) => assertCan(auth, contract.deleteArchetype.permission, archetype.projects));
  return { deletedId: params.id };
}

/** `GET /archetypes/{id}`: get an archetype. */
export async function getArchetype({ params, auth }: UseCaseInput<typeof contract.getArchetype>): UseCaseOutput<typeof contract.getArchetype> {
  const archetype = await archetypes.get(auth.orgId, params.id);
  return { archetype: readableOr404(auth, archetype, archetype.projects ?? [], 'Archetype', params.id) };
}

/** `GET /archetypes`: list archetypes. */
export async function listArchetypes({ auth }: UseCaseInput<typeof contract.listArchetypes>): UseCaseOutput<typeof contract.listArchetypes> {
  return { archetypes: readableBy(auth, await archetypes.all(auth.orgId), (archetype) => archetype.projects ?? []) };
}

/** `POST /archetypes`: create an archetype. */
export async function postArchetype({ body, auth }: UseCaseInput<typeof contract.postArchetype>): UseCaseOutput<typeof contract.postArchetype> {
  assertCan(auth, contract.postArchetype.permission, body.projects);
  await assertProjectsExist(auth.orgId, body.projects);
  const { owner: ownerInput, ...fields } = body;
  const owner = await ownerForCreate(auth.orgId, ownerInput, auth.memberId);
  const archetype = await archetypes.create(auth.orgId, {
    id: newId('sam_'),
    description: '',
    attributes: {},
    projects: [],
    ...fields,
    ...owner,
  });
  return { archetype };
}

/** `PUT /archetypes/{id}`: partially update an archetype. */
export async function putArchetype({ params, body, auth }: UseCaseInput<typeof contract.putArchetype>): UseCaseOutput<typeof contract.putArchetype> {
  const { owner: ownerInput, ...fields } = body;
  await assertProjectsExist(auth.orgId, fields.projects);
  const owner = ownerInput !== undefined ? await resolveOwner(auth.orgId, ownerInput) : undefined;
  const archetype = await archetypes.update(auth.orgId, params.id, (current) => {
    assertCan(auth, contract.putArchetype.permission, current.projects);
    if (fields.projects) assertCan(auth, contract.putArchetype.permission, fields.projects);
    return withOwner({ ...current, ...fields }, owner);
  });
  return { archetype };
}
