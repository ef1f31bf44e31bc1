import { endpoint } from '../../shared/api/endpoint';
import { postCodeRefs, type CodeRefInput } from '../../shared/contracts/code-refs';
import { codeRefs, replaceCodeRefs } from '../../shared/store/code-refs';

export const handler = endpoint(postCodeRefs, async ({ query, body, auth }) => {
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
});
