import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postSegment } from '../../shared/contracts/segments';
import { segmentDefinition } from '../../shared/domain/segments';
import { factTableLookup } from '../../shared/store/fact-tables';
import { newId } from '../../shared/ids';
import { ownerForCreate } from '../../shared/store/members';
import { assertProjectsExist } from '../../shared/store/projects';
import { segments } from '../../shared/store/segments';

export const handler = endpoint(postSegment, async ({ body, auth }) => {
  assertCan(auth, postSegment.permission, body.projects);
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
});
