import { endpoint } from '../../shared/api/endpoint';
import { deleteMember } from '../../shared/contracts/member-changes';
import { removeMember } from '../../shared/store/members';

export const handler = endpoint(deleteMember, async ({ params, auth }) => {
  await removeMember(auth.orgId, params.id);
  return { deletedId: params.id };
});
