import * as contract from '../contracts/projects';
import { type Project } from '../contracts/projects';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { paginated } from '../domain/pagination';
import { newId } from '../ids';
import { assertCan, readsEverywhere } from '../permissions';
import { createProject, projects, removeProject, updateProject } from '../store/projects';
import { readableOr404, readablePage } from './read-access';

/** `DELETE /projects/{id}`: delete a project. */
export async function deleteProject({ params, auth }: UseCaseInput<typeof contract.deleteProject>): UseCaseOutput<typeof contract.deleteProject> {
  assertCan(auth, contract.deleteProject.permission, [params.id]);
  await removeProject(auth.orgId, params.id);
  return { deletedId: params.id };
}

/** `GET /projects/{id}`: get a project. */
export async function getProject({ params, auth }: UseCaseInput<typeof contract.getProject>): UseCaseOutput<typeof contract.getProject> {
  // A project is read like a resource in it (GrowthBook's ProjectModel: canReadSingleProjectResource of its id).
  const project = await projects.get(auth.orgId, params.id);
  return { project: readableOr404(auth, project, [project.id], 'Project', params.id) };
}

/** `GET /projects`: list projects. */
export async function listProjects({ query, auth }: UseCaseInput<typeof contract.listProjects>): UseCaseOutput<typeof contract.listProjects> {
  const page = readsEverywhere(auth)
    ? await projects.list(auth.orgId, query)
    : readablePage(auth, await projects.all(auth.orgId), (project) => [project.id], query);
  return paginated('projects', page, query);
}

/** `POST /projects`: create a project. */
export async function postProject({ body, auth }: UseCaseInput<typeof contract.postProject>): UseCaseOutput<typeof contract.postProject> {
  const project = await createProject(
    auth.orgId,
    { id: newId('prj_'), name: body.name, description: body.description ?? '', settings: body.settings ?? {} },
    body.publicId,
  );
  return { project };
}

/** `PUT /projects/{id}`: partially update a project. */
export async function putProject({ params, body, auth }: UseCaseInput<typeof contract.putProject>): UseCaseOutput<typeof contract.putProject> {
  // A project admin manages the projects it holds the role in.
  assertCan(auth, contract.putProject.permission, [params.id]);
  const { settings, publicId, ...fields } = body;
  const change = (current: Project): Project => ({
    ...current,
    ...fields,
    ...(publicId ? { publicId } : {}),
    // Settings given replace the whole object, as in GrowthBook: a key left out is cleared.
    ...(settings ? { settings } : {}),
  });
  // Only a request naming a publicId may move its guard item, which takes a transaction.
  const project = publicId ? await updateProject(auth.orgId, params.id, change) : await projects.update(auth.orgId, params.id, change);
  return { project };
}
