import { endpoint } from '../../shared/api/endpoint';
import { getDimension } from '../../shared/contracts/dimensions';
import { dimensions } from '../../shared/store/dimensions';

export const handler = endpoint(getDimension, async ({ params, auth }) => ({ dimension: await dimensions.get(auth.orgId, params.id) }));
