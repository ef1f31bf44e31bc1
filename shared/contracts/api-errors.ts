import * as z from './zod';

/**
 * GrowthBook's registry of typed API errors (`apiErrorRegistry` in its shared validators): each code
 * with the status it is answered with and the shape of its `details`. Where GrowthBook answers one of
 * these codes, Switchyard answers the same status, `code` and `details` (the body is
 * `{ message, code, details }`); shared/api/errors.ts takes the status from here.
 */
const checklistItem = z.object({
  key: z.string(),
  required: z.boolean(),
  status: z.enum(['complete', 'incomplete']),
  manual: z.boolean(),
  reason: z.string(),
});

export const apiErrorRegistry = {
  conflict: { status: 409, description: 'Conflict', details: z.object({ conflicts: z.array(z.unknown()) }) },
  checklist_incomplete: {
    status: 409,
    description: 'Required checklist items are incomplete',
    details: z.object({ remainingChecklistItems: z.array(checklistItem) }),
  },
  pending_draft_publish_failed: {
    status: 409,
    description: 'One or more linked feature drafts could not be published',
    details: z.object({
      failedFeatureDrafts: z.array(
        z.object({
          featureId: z.string(),
          revisionVersion: z.number(),
          reason: z.enum(['merge-conflict', 'needs-rebase', 'needs-approval', 'publish-error']),
        }),
      ),
    }),
  },
  invalid_status: {
    status: 409,
    description: 'Resource is not in a valid status for this operation',
    details: z.object({ currentStatus: z.string(), expectedStatuses: z.array(z.string()) }),
  },
} as const;

export type ApiErrorCode = keyof typeof apiErrorRegistry;
export type ApiErrorDetails<C extends ApiErrorCode> = z.infer<(typeof apiErrorRegistry)[C]['details']>;
export type ChecklistItem = z.infer<typeof checklistItem>;

/** Whether a code is one of GrowthBook's registered error codes. */
export const isRegisteredCode = (code: string): code is ApiErrorCode => Object.hasOwn(apiErrorRegistry, code);

/**
 * Whether an error's details are the registered shape for its code: an error answered with a
 * registered code but other details would mislead a client that reads them by code.
 */
export function hasRegisteredDetails(code: string, details: unknown): boolean {
  return !isRegisteredCode(code) || apiErrorRegistry[code].details.safeParse(details).success;
}
