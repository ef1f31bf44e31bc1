import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { putAttribute } from '../../shared/contracts/attributes';
import { withApplicableEnum } from '../../shared/domain/attributes';
import { attributes, toAttribute } from '../../shared/store/attributes';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(putAttribute, async ({ params, body, auth }) => {
  await assertProjectsExist(auth.orgId, body.projects);
  const updated = await attributes.update(auth.orgId, params.property, (current) => {
    assertCan(auth, putAttribute.permission, current.projects);
    if (body.projects) assertCan(auth, putAttribute.permission, body.projects);
    return withApplicableEnum({ ...current, ...body });
  });
  return { attribute: toAttribute(updated) };
});
