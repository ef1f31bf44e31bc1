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
