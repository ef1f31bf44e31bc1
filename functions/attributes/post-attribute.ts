import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { postAttribute } from '../../shared/contracts/attributes';
import { withApplicableEnum } from '../../shared/domain/attributes';
import { attributes, toAttribute } from '../../shared/store/attributes';
import { assertProjectsExist } from '../../shared/store/projects';

export const handler = endpoint(postAttribute, async ({ body, auth }) => {
  assertCan(auth, postAttribute.permission, body.projects);
  await assertProjectsExist(auth.orgId, body.projects);
  const created = await attributes.create(
    auth.orgId,
    withApplicableEnum({
      id: body.property,
      description: '',
      hashAttribute: false,
      archived: false,
      enum: '',
      format: '',
      projects: [],
      tags: [],
      ...body,
    }),
  );
  return { attribute: toAttribute(created) };
});
