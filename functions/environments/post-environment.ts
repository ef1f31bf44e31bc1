import { endpoint } from '../../shared/api/endpoint';
import { InvalidInputError } from '../../shared/errors';
import { postEnvironment } from '../../shared/contracts/environments';
import { environments, publicEnvironment } from '../../shared/store/environments';
import { assertProjectsExist } from '../../shared/store/projects';
import { writeInheritedEntries } from '../../shared/payload/inherited-entries';

export const handler = endpoint(postEnvironment, async ({ body, auth }) => {
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
});
