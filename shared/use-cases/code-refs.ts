import * as contract from '../contracts/code-refs';
import { type CodeRefInput } from '../contracts/code-refs';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { codeRefOrder, toApiCodeRef } from '../domain/code-refs';
import { paginated } from '../domain/pagination';
import { NotFoundError } from '../errors';
import { codeRefs, codeRefsOfFeature, replaceCodeRefs } from '../store/code-refs';
import { features } from '../store/features';

/** `GET /code-refs/{id}`: the code references of one feature, in every repository and branch (404 when the id is neither a feature nor referenced). */
export async function getCodeRefs({ params, auth }: UseCaseInput<typeof contract.getCodeRefs>): UseCaseOutput<typeof contract.getCodeRefs> {
  const found = await codeRefsOfFeature(auth.orgId, params.id);
  // A feature no code references has an empty list; an id that is neither a feature nor referenced is unknown here.
  if (found.length === 0 && !(await features.find(auth.orgId, params.id))) throw new NotFoundError(`Feature ${params.id} not found`);
  return { codeRefs: found.sort(codeRefOrder).map((item) => toApiCodeRef(auth.orgId, item)) };
}

/** `GET /code-refs`: list the code references of the organization. */
export async function listCodeRefs({ query, auth }: UseCaseInput<typeof contract.listCodeRefs>): UseCaseOutput<typeof contract.listCodeRefs> {
  const all = (await codeRefs.all(auth.orgId)).sort(codeRefOrder);
  const items = all.slice(query.offset, query.offset + query.limit).map((item) => toApiCodeRef(auth.orgId, item));
  return paginated('codeRefs', { items, total: all.length }, query);
}

/** `POST /code-refs`: submit a repository branch's code references, grouped by flag (deleteMissing=true empties those of flags not sent). */
export async function postCodeRefs({ query, body, auth }: UseCaseInput<typeof contract.postCodeRefs>): UseCaseOutput<typeof contract.postCodeRefs> {
  const byFeature = new Map<string, CodeRefInput[]>();
  for (const ref of body.refs) byFeature.set(ref.flagKey, [...(byFeature.get(ref.flagKey) ?? []), ref]);
  if (query.deleteMissing === 'true') {
    // Flags this branch referenced before but not any more keep an item with no references.
    const before = await codeRefs.all(auth.orgId);
    for (const item of before) {
      if (item.repo === body.repoName && item.branch === body.branch && !byFeature.has(item.feature)) byFeature.set(item.feature, []);
    }
  }
  await replaceCodeRefs(auth.orgId, body.repoName, body.branch, byFeature);
  return { featuresUpdated: [...byFeature.keys()] };
}
