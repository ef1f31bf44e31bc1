/** One page of a list, with the number of items in the whole list. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** The pagination fields of a list answer, as BEHAVIOR.md defines them. */
export function paginated<K extends string, T>(
  key: K,
  page: Page<T>,
  request: { limit: number; offset: number },
): { [P in K]: T[] } & { limit: number; offset: number; count: number; total: number; hasMore: boolean; nextOffset: number | null } {
  const hasMore = request.offset + request.limit < page.total;
  return {
    [key]: page.items,
    limit: request.limit,
    offset: request.offset,
    count: page.items.length,
    total: page.total,
    hasMore,
    nextOffset: hasMore ? request.offset + request.limit : null,
  } as never;
}
