import * as z from './zod';
import { defineEndpoint } from './spec';
import { idParams, paginationFields, paginationQuery } from './common';

// Code references: where a repository branch uses each feature flag. GrowthBook's code-reference CI
// action posts them; scripts read them to find flags no code uses any more.

const codeRefLine = z.object({
  filePath: z.string(),
  startingLineNumber: z.int(),
  lines: z.string(),
  flagKey: z.string(),
});

export const codeRef = z.strictObject({
  organization: z.string(),
  dateUpdated: z.string(),
  feature: z.string(),
  repo: z.string(),
  branch: z.string(),
  platform: z.optional(z.enum(['github', 'gitlab', 'bitbucket'])),
  refs: z.array(codeRefLine),
});
export type CodeRef = z.infer<typeof codeRef>;

/** One reference as the CI action sends it; unknown keys of a reference are dropped, as GrowthBook's parser drops them. */
const codeRefInput = z.object({
  filePath: z.string().check(z.maxLength(4096)),
  startingLineNumber: z.int(),
  lines: z.string().check(z.maxLength(100_000)),
  flagKey: z.string().check(z.minLength(1), z.maxLength(256)),
  contentHash: z.string().check(z.maxLength(1024)),
});
export type CodeRefInput = z.infer<typeof codeRefInput>;

export const postCodeRefs = defineEndpoint({
  operationId: 'postCodeRefs',
  method: 'POST',
  path: '/code-refs',
  summary: "Submit a repository branch's code references, grouped by flag (deleteMissing=true empties those of flags not sent)",
  tag: 'code-references',
  permission: 'manageFeatures',
  query: z.strictObject({ deleteMissing: z.optional(z.enum(['true', 'false'])) }),
  body: z.strictObject({
    branch: z.string().check(z.maxLength(1024)),
    repoName: z.string().check(z.maxLength(1024)),
    refs: z.array(codeRefInput).check(z.maxLength(100_000)),
  }),
  response: z.strictObject({ featuresUpdated: z.optional(z.array(z.string())) }),
});

export const listCodeRefs = defineEndpoint({
  operationId: 'listCodeRefs',
  method: 'GET',
  path: '/code-refs',
  summary: 'List the code references of the organization',
  tag: 'code-references',
  permission: 'read',
  query: z.strictObject(paginationQuery.shape),
  response: z.extend(z.object({ codeRefs: z.array(codeRef) }), paginationFields.shape),
});

export const getCodeRefs = defineEndpoint({
  operationId: 'getCodeRefs',
  method: 'GET',
  path: '/code-refs/{id}',
  summary: 'The code references of one feature, in every repository and branch (404 when the id is neither a feature nor referenced)',
  tag: 'code-references',
  permission: 'read',
  params: idParams,
  response: z.strictObject({ codeRefs: z.array(codeRef) }),
});

export const codeRefEndpoints = [postCodeRefs, listCodeRefs, getCodeRefs];
