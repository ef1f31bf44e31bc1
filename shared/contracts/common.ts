import * as z from 'zod';

/** Path parameter `{id}`. */
export const idParams = z.object({ id: z.string().min(1).max(256) });

/** `limit` and `offset` query parameters of a paginated list. */
export const paginationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(10),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** The fields a paginated list carries next to its items. */
export const paginationFields = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  count: z.number().int(),
  total: z.number().int(),
  hasMore: z.boolean(),
  nextOffset: z.number().int().nullable(),
});

/** A boolean in a query string: `true`/`1` or `false`/`0`. */
export const queryBoolean = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** `{deletedId}`, the answer of every delete. */
export const deletedResponse = z.object({ deletedId: z.string() });

export const stringList = z.array(z.string().max(1024)).max(1000);

const DATE_INPUT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A date as GrowthBook takes it: `2024-05-01`, `2024-05-01T00:00:00` (both UTC) or a full ISO date-time
 * with an offset; stored as the ISO date-time in UTC.
 */
export const dateInput = z
  .string()
  .regex(DATE_INPUT, 'must be an ISO date or date-time, e.g. 2024-05-01 or 2024-05-01T09:30:00Z')
  .overwrite((text) => {
    const utc = text.length === 10 ? `${text}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
    const date = new Date(utc);
    return Number.isNaN(date.getTime()) ? text : date.toISOString();
  })
  .refine((text) => !Number.isNaN(new Date(text).getTime()) && text.endsWith('Z'), { message: 'is not a valid date' });
