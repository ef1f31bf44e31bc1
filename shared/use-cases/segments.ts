import * as contract from '../contracts/segments';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { paginated } from '../domain/pagination';
import { withOwner } from '../domain/owner';
import { segmentDefinition, segmentDefinitionAfter } from '../domain/segments';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { factTableLookup } from '../store/fact-tables';
import { ownerForCreate, resolveOwner } from '../store/members';
import { assertProjectsExist } from '../store/projects';
import { segments } from '../store/segments';
import { readableOr404, visibleTo } from './read-access';

/** `DELETE /segments/{id}`: delete a segment. */
export async function deleteSegment({ params, auth }: UseCaseInput<typeof contract.deleteSegment>): UseCaseOutput<typeof contract.deleteSegment> {
  await segments.remove(auth.orgId, params.id, (segment) => assertCan(auth, contract.deleteSegment.permission, segment.projects));
  return { deletedId: params.id };
}

/** `GET /segments/{id}`: get a segment. */
export async function getSegment({ params, auth }: UseCaseInput<typeof contract.getSegment>): UseCaseOutput<typeof contract.getSegment> {
  const segment = await segments.get(auth.orgId, params.id);
  return { segment: readableOr404(auth, segment, segment.projects ?? [], 'Segment', params.id) };
}

/** `GET /segments`: list segments. */
export async function listSegments({ query, auth }: UseCaseInput<typeof contract.listSegments>): UseCaseOutput<typeof contract.listSegments> {
  const tags = query.datasourceId ? [`datasource:${query.datasourceId}`] : [];
  return paginated('segments', await segments.list(auth.orgId, { limit: query.limit, offset: query.offset, tags, visible: visibleTo(auth) }), query);
}

/** `POST /segments`: create a segment. */
export async function postSegment({ body, auth }: UseCaseInput<typeof contract.postSegment>): UseCaseOutput<typeof contract.postSegment> {
  assertCan(auth, contract.postSegment.permission, body.projects);
  const { owner: ownerInput, type, query, factTableId, filters, ...fields } = body;
  const lookup = await factTableLookup(auth.orgId, [{ factTableId }]);
  const definition = segmentDefinition({ type, datasourceId: body.datasourceId, query, factTableId, filters }, lookup);
  await assertProjectsExist(auth.orgId, body.projects);
  const owner = await ownerForCreate(auth.orgId, ownerInput, auth.memberId);
  const segment = await segments.create(auth.orgId, {
    id: newId('seg_'),
    ...fields,
    ...definition,
    ...owner,
    description: fields.description ?? '',
    projects: fields.projects ?? [],
    managedBy: fields.managedBy ?? '',
  });
  return { segment };
}

/** `POST /segments/{id}`, and GrowthBook's singular `POST /segment/{id}`, which performs the same update. */
export async function updateSegment({ params, body, auth }: UseCaseInput<typeof contract.updateSegment>): UseCaseOutput<typeof contract.updateSegment> {
  const { owner: ownerInput, type: _type, query: _query, factTableId: _table, filters: _filters, ...fields } = body;
  // The body's references are checked after the read, so an unknown segment is 404 first.
  const segment = await segments.update(auth.orgId, params.id, async (current) => {
    const after = segmentDefinitionAfter(current, body);
    const lookup = await factTableLookup(auth.orgId, [after]);
    await assertProjectsExist(auth.orgId, body.projects);
    const owner = ownerInput !== undefined ? await resolveOwner(auth.orgId, ownerInput) : undefined;
    assertCan(auth, contract.updateSegment.permission, current.projects);
    if (body.projects) assertCan(auth, contract.updateSegment.permission, body.projects);
    const definition = segmentDefinition(after, lookup);
    // The old type's fields go with it, so they are rebuilt from the definition alone.
    const { query: _q, factTableId: _f, filters: _fl, ...rest } = current;
    return withOwner({ ...rest, ...fields, ...definition }, owner);
  });
  return { segment };
}
