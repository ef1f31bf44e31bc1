import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { deleteSegment } from '../../shared/contracts/segments';
import { segments } from '../../shared/store/segments';

export const handler = endpoint(deleteSegment, async ({ params, auth }) => {
  await segments.remove(auth.orgId, params.id, (segment) => assertCan(auth, deleteSegment.permission, segment.projects));
  return { deletedId: params.id };
});
