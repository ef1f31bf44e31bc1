import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { setHoldoutStage } from '../../shared/contracts/holdouts';
import { stagedHoldout } from '../../shared/domain/holdouts';
import { holdouts } from '../../shared/store/holdouts';

export const handler = endpoint(setHoldoutStage, async ({ params, body, auth }) => {
  const holdout = await holdouts.update(auth.orgId, params.id, (current) => {
    assertCan(auth, 'write', current.projects);
    return stagedHoldout(current, body.stage, new Date().toISOString());
  });
  return { holdout };
});
