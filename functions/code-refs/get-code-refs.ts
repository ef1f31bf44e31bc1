import { endpoint } from '../../shared/api/endpoint';
import { getCodeRefs } from '../../shared/contracts/code-refs';
import { codeRefOrder, toApiCodeRef } from '../../shared/domain/code-refs';
import { codeRefsOfFeature } from '../../shared/store/code-refs';

// A feature no code references (or no such feature) has an empty list, as in GrowthBook.
export const handler = endpoint(getCodeRefs, async ({ params, auth }) => ({
  codeRefs: (await codeRefsOfFeature(auth.orgId, params.id)).sort(codeRefOrder).map((item) => toApiCodeRef(auth.orgId, item)),
}));
