import * as contract from '../contracts/holdouts';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { DEFAULT_HOLDOUT_SIZE, applyHoldoutUpdate, assertHoldoutEnvironments, stagedHoldout } from '../domain/holdouts';
import { paginated } from '../domain/pagination';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { environments } from '../store/environments';
import { holdouts } from '../store/holdouts';
import { assertProjectsExist } from '../store/projects';
import { readableOr404, visibleTo } from './read-access';

/** `POST /holdouts`: create a holdout (it starts as a draft). */
export async function createHoldout({ body, auth }: UseCaseInput<typeof contract.createHoldout>): UseCaseOutput<typeof contract.createHoldout> {
  assertCan(auth, 'write', body.projects ?? []);
  const [known] = await Promise.all([environments.all(auth.orgId), assertProjectsExist(auth.orgId, body.projects)]);
  assertHoldoutEnvironments(
    body.environments,
    known.map((environment) => environment.id),
  );
  const id = newId('hld_');
  const holdout = await holdouts.create(auth.orgId, {
    id,
    name: body.name,
    description: body.description ?? '',
    projects: body.projects ?? [],
    tags: body.tags ?? [],
    archived: false,
    stage: 'draft',
    trackingKey: body.trackingKey ?? id,
    holdoutSize: body.holdoutSize ?? DEFAULT_HOLDOUT_SIZE,
    hashAttribute: body.hashAttribute ?? 'id',
    environments: body.environments ?? {},
  });
  return { holdout };
}

/** `GET /holdouts/{id}`: get a holdout. */
export async function getHoldout({ params, auth }: UseCaseInput<typeof contract.getHoldout>): UseCaseOutput<typeof contract.getHoldout> {
  const holdout = await holdouts.get(auth.orgId, params.id);
  return { holdout: readableOr404(auth, holdout, holdout.projects, 'Holdout', params.id) };
}

/** `GET /holdouts`: list holdouts. */
export async function listHoldouts({ query, auth }: UseCaseInput<typeof contract.listHoldouts>): UseCaseOutput<typeof contract.listHoldouts> {
  const tags = [...(query.projectId ? [`project:${query.projectId}`] : []), ...(query.stage ? [`stage:${query.stage}`] : [])];
  return paginated('holdouts', await holdouts.list(auth.orgId, { limit: query.limit, offset: query.offset, tags, visible: visibleTo(auth) }), query);
}

/** `POST /holdouts/{id}/stage`: move a holdout to another stage. */
export async function setHoldoutStage({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.setHoldoutStage>): UseCaseOutput<typeof contract.setHoldoutStage> {
  const holdout = await holdouts.update(auth.orgId, params.id, (current) => {
    assertCan(auth, 'write', current.projects);
    return stagedHoldout(current, body.stage, new Date().toISOString());
  });
  return { holdout };
}

/** `PUT /holdouts/{id}`: update a holdout (the fields given; `environments` replaces them all). */
export async function updateHoldout({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateHoldout>): UseCaseOutput<typeof contract.updateHoldout> {
  const holdout = await holdouts.update(auth.orgId, params.id, async (current) => {
    assertCan(auth, 'write', current.projects);
    if (body.projects) assertCan(auth, 'write', body.projects);
    const [known] = await Promise.all([environments.all(auth.orgId), assertProjectsExist(auth.orgId, body.projects)]);
    assertHoldoutEnvironments(
      body.environments,
      known.map((environment) => environment.id),
    );
    return applyHoldoutUpdate(current, body);
  });
  return { holdout };
}
