import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listCodeRefs } from '../../shared/contracts/code-refs';
import { codeRefOrder, toApiCodeRef } from '../../shared/domain/code-refs';
import { codeRefs } from '../../shared/store/code-refs';

export const handler = endpoint(listCodeRefs, async ({ query, auth }) => {
  const all = (await codeRefs.all(auth.orgId)).sort(codeRefOrder);
  const items = all.slice(query.offset, query.offset + query.limit).map((item) => toApiCodeRef(auth.orgId, item));
  return paginated('codeRefs', { items, total: all.length }, query);
});
