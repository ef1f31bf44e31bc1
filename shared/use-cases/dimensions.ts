import * as contract from '../contracts/dimensions';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { paginated } from '../domain/pagination';
import { newId } from '../ids';
import { dimensions } from '../store/dimensions';
import { ownerForCreate, resolveOwner } from '../store/members';

/** `DELETE /dimensions/{id}`: delete a dimension. */
export async function deleteDimension({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteDimension>): UseCaseOutput<typeof contract.deleteDimension> {
  await dimensions.remove(auth.orgId, params.id);
  return { deletedId: params.id };
}

/** `GET /dimensions/{id}`: get a dimension. */
export async function getDimension({ params, auth }: UseCaseInput<typeof contract.getDimension>): UseCaseOutput<typeof contract.getDimension> {
  return { dimension: await dimensions.get(auth.orgId, params.id) };
}

/** `GET /dimensions`: list dimensions. */
export async function listDimensions({ query, auth }: UseCaseInput<typeof contract.listDimensions>): UseCaseOutput<typeof contract.listDimensions> {
  const tags = query.datasourceId ? [`datasource:${query.datasourceId}`] : [];
  return paginated('dimensions', await dimensions.list(auth.orgId, { ...query, tags }), query);
}

/** `POST /dimensions`: create a dimension. */
export async function postDimension({ body, auth }: UseCaseInput<typeof contract.postDimension>): UseCaseOutput<typeof contract.postDimension> {
  const { owner, ...fields } = body;
  const dimension = await dimensions.create(auth.orgId, {
    ...fields,
    id: newId('dim_'),
    owner: (await ownerForCreate(auth.orgId, owner, auth.memberId)).owner,
  });
  return { dimension };
}

/** `POST /dimensions/{id}`: partially update a dimension. */
export async function updateDimension({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateDimension>): UseCaseOutput<typeof contract.updateDimension> {
  const dimension = await dimensions.update(auth.orgId, params.id, async (current) => {
    const { owner, ...fields } = body;
    return { ...current, ...fields, ...(owner !== undefined ? { owner: (await resolveOwner(auth.orgId, owner)).owner } : {}) };
  });
  return { dimension };
}
