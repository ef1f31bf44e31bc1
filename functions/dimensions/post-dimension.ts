import { endpoint } from '../../shared/api/endpoint';
import { postDimension } from '../../shared/contracts/dimensions';
import { newId } from '../../shared/ids';
import { dimensions } from '../../shared/store/dimensions';
import { resolveOwner } from '../../shared/store/members';

export const handler = endpoint(postDimension, async ({ body, auth }) => {
  const { owner, ...fields } = body;
  const dimension = await dimensions.create(auth.orgId, {
    ...fields,
    id: newId('dim_'),
    owner: owner ? (await resolveOwner(auth.orgId, owner)).id : (auth.memberId ?? ''),
  });
  return { dimension };
});
