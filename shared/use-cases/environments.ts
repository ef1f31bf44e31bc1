import * as contract from '../contracts/environments';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { ConflictError, InvalidInputError } from '../errors';
import { environments, publicEnvironment } from '../store/environments';
import { writeInheritedEntries } from '../payload/inherited-entries';
import { assertProjectsExist } from '../store/projects';

/** `DELETE /environments/{id}`: delete an environment. */
export async function deleteEnvironment({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteEnvironment>): UseCaseOutput<typeof contract.deleteEnvironment> {
  const children = (await environments.all(auth.orgId)).filter((environment) => environment.parent === params.id);
  if (children.length) {
    throw new ConflictError(
      'invalid_status',
      `Environment ${params.id} is the parent of ${children.map((child) => child.id).join(', ')}; delete or re-create those first`,
    );
  }
  await environments.remove(auth.orgId, params.id);
  return { deletedId: params.id };
}

/** `GET /environments`: list the organization's environments. */
export async function listEnvironments({ auth }: UseCaseInput<typeof contract.listEnvironments>): UseCaseOutput<typeof contract.listEnvironments> {
  return {
    environments: (await environments.all(auth.orgId)).map(publicEnvironment),
  };
}

/** `POST /environments`: create an environment. */
export async function postEnvironment({ body, auth }: UseCaseInput<typeof contract.postEnvironment>): UseCaseOutput<typeof contract.postEnvironment> {
  if (body.parent && !(await environments.find(auth.orgId, body.parent))) {
    throw new InvalidInputError(`Request body: [parent] no environment ${body.parent}`);
  }
  await assertProjectsExist(auth.orgId, body.projects);
  const environment = await environments.create(auth.orgId, {
    id: body.id,
    description: body.description ?? '',
    toggleOnList: body.toggleOnList ?? false,
    // GrowthBook's default for an environment created through the API; the starting ones are on.
    defaultState: body.defaultState ?? false,
    projects: body.projects ?? [],
    ...(body.parent ? { parent: body.parent } : {}),
  });
  // Features have no settings of their own in a new environment: a child serves its parent's.
  if (body.parent) await writeInheritedEntries(auth.orgId, body.id);
  return { environment: publicEnvironment(environment) };
}

/** `PUT /environments/{id}`: partially update an environment. */
export async function putEnvironment({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.putEnvironment>): UseCaseOutput<typeof contract.putEnvironment> {
  // The body's references are checked after the read, so an unknown environment is 404 first.
  const environment = await environments.update(auth.orgId, params.id, async (current) => {
    await assertProjectsExist(auth.orgId, body.projects);
    return { ...current, ...body };
  });
  return { environment: publicEnvironment(environment) };
}
