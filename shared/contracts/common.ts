import * as z from './zod';

/** Path parameter `{id}`. */
export const idParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(256)) });

/** `limit` and `offset` query parameters of a paginated list. */
export const paginationQuery = z.object({
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 10),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(1_000_000)), 0),
});

/** The fields a paginated list carries next to its items. */
export const paginationFields = z.object({
  limit: z.int(),
  offset: z.int(),
  count: z.int(),
  total: z.int(),
  hasMore: z.boolean(),
  nextOffset: z.nullable(z.int()),
});

/** A boolean in a query string: `true`/`1` or `false`/`0`. */
export const queryBoolean = z.pipe(
  z.enum(['true', 'false', '1', '0']),
  z.transform((value) => value === 'true' || value === '1'),
);

/** `{deletedId}`, the answer of every delete. */
export const deletedResponse = z.object({ deletedId: z.string() });

/** GrowthBook's `bypassedGates`: the publish gates the caller's authority let a write pass (present only when there are some). */
export const bypassedGates = z.optional(
  z.array(
    z.object({
      type: z.string(),
      outcome: z.literal('bypassed'),
      via: z.enum(['ignoreWarnings', 'skipSchemaValidation', 'skipHooks', 'bypassApprovalPermission', 'restApiBypassesReviews', 'revertsBypassApproval']),
    }),
  ),
);
export type BypassedGate = NonNullable<z.infer<typeof bypassedGates>>[number];

export const stringList = z.array(z.string().check(z.maxLength(1024))).check(z.maxLength(1000));

const DATE_INPUT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A date as GrowthBook takes it: `2024-05-01`, `2024-05-01T00:00:00` (both UTC) or a full ISO date-time
 * with an offset; stored as the ISO date-time in UTC.
 */
export const dateInput = z.string().check(
  z.regex(DATE_INPUT, 'must be an ISO date or date-time, e.g. 2024-05-01 or 2024-05-01T09:30:00Z'),
  z.overwrite((text) => {
    const utc = text.length === 10 ? `${text}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
    const date = new Date(utc);
    return Number.isNaN(date.getTime()) ? text : date.toISOString();
  }),
  z.refine((text) => !Number.isNaN(new Date(text).getTime()) && text.endsWith('Z'), { message: 'is not a valid date' }),
);
