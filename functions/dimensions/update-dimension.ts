import { endpoint } from '../../shared/api/endpoint';
import { updateDimension } from '../../shared/contracts/dimensions';
import { dimensions } from '../../shared/store/dimensions';
import { resolveOwner } from '../../shared/store/members';

export const handler = endpoint(updateDimension, async ({ params, body, auth }) => {
  const dimension = await dimensions.update(auth.orgId, params.id, async (current) => {
    const { owner, ...fields } = body;
    return { ...current, ...fields, ...(owner !== undefined ? { owner: (await resolveOwner(auth.orgId, owner)).owner } : {}) };
  });
  return { dimension };
});
