import { endpoint } from '../../shared/api/endpoint';
import { NotFoundError } from '../../shared/errors';
import { getCodeRefs } from '../../shared/contracts/code-refs';
import { codeRefOrder, toApiCodeRef } from '../../shared/domain/code-refs';
import { codeRefsOfFeature } from '../../shared/store/code-refs';
import { features } from '../../shared/store/features';

export const handler = endpoint(getCodeRefs, async ({ params, auth }) => {
  const found = await codeRefsOfFeature(auth.orgId, params.id);
  // A feature no code references has an empty list; an id that is neither a feature nor referenced is unknown here.
  if (found.length === 0 && !(await features.find(auth.orgId, params.id))) throw new NotFoundError(`Feature ${params.id} not found`);
  return { codeRefs: found.sort(codeRefOrder).map((item) => toApiCodeRef(auth.orgId, item)) };
});
