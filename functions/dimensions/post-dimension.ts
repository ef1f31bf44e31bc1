import { endpoint } from '../../shared/api/endpoint';
import { postDimension } from '../../shared/contracts/dimensions';
import { newId } from '../../shared/ids';
import { dimensions } from '../../shared/store/dimensions';
import { ownerForCreate } from '../../shared/store/members';

export const handler = endpoint(postDimension, async ({ body, auth }) => {
  const { owner, ...fields } = body;
  const dimension = await dimensions.create(auth.orgId, {
    ...fields,
    id: newId('dim_'),
    owner: (await ownerForCreate(auth.orgId, owner, auth.memberId)).owner,
  });
  return { dimension };
});
