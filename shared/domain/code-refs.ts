import type { CodeRef } from '../contracts/code-refs';

/** A stored code reference item as the API shows it: the organization, and each reference without its content hash. */
export function toApiCodeRef(
  orgId: string,
  stored: { feature: string; repo: string; branch: string; dateUpdated: string; refs: Array<CodeRef['refs'][number] & { contentHash?: string }> },
): CodeRef {
  return {
    organization: orgId,
    dateUpdated: stored.dateUpdated,
    feature: stored.feature,
    repo: stored.repo,
    branch: stored.branch,
    refs: stored.refs.map(({ filePath, startingLineNumber, lines, flagKey }) => ({ filePath, startingLineNumber, lines, flagKey })),
  };
}

/** GrowthBook's list order: by repository, then branch, then feature. */
export const codeRefOrder = (a: { repo: string; branch: string; feature: string }, b: typeof a) =>
  a.repo.localeCompare(b.repo) || a.branch.localeCompare(b.branch) || a.feature.localeCompare(b.feature);
