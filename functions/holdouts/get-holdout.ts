import { endpoint } from '../../shared/api/endpoint';
import { getHoldout } from '../../shared/contracts/holdouts';
import { holdouts } from '../../shared/store/holdouts';

export const handler = endpoint(getHoldout, async ({ params, auth }) => ({
  holdout: await holdouts.get(auth.orgId, params.id),
}));
