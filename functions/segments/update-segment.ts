import { endpoint, type EndpointRequest } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { updateSegment } from '../../shared/contracts/segments';
import { segmentDefinition, segmentDefinitionAfter } from '../../shared/domain/segments';
import { factTableLookup } from '../../shared/store/fact-tables';
import { resolveOwner } from '../../shared/store/members';
import { withOwner } from '../../shared/domain/owner';
import { assertProjectsExist } from '../../shared/store/projects';
import { segments } from '../../shared/store/segments';

/** The update both `POST /segments/{id}` and `POST /segment/{id}` perform. */
export async function applySegmentUpdate({ params, body, auth }: EndpointRequest<typeof updateSegment>) {
  const { owner: ownerInput, type: _type, query: _query, factTableId: _table, filters: _filters, ...fields } = body;
  // The body's references are checked after the read, so an unknown segment is 404 first.
  const segment = await segments.update(auth.orgId, params.id, async (current) => {
    const after = segmentDefinitionAfter(current, body);
    const lookup = await factTableLookup(auth.orgId, [after]);
    await assertProjectsExist(auth.orgId, body.projects);
    const owner = ownerInput !== undefined ? await resolveOwner(auth.orgId, ownerInput) : undefined;
    assertCan(auth, updateSegment.permission, current.projects);
    if (body.projects) assertCan(auth, updateSegment.permission, body.projects);
    const definition = segmentDefinition(after, lookup);
    // The old type's fields go with it, so they are rebuilt from the definition alone.
    const { query: _q, factTableId: _f, filters: _fl, ...rest } = current;
    return withOwner({ ...rest, ...fields, ...definition }, owner);
  });
  return { segment };
}

export const handler = endpoint(updateSegment, applySegmentUpdate);
