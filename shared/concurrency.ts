/**
 * Independent reads side by side: a request that needs several costs the longest of them, not
 * their sum. Failures keep the order the reads would have had one after another, so the same
 * request always gets the same error.
 */

/** Awaits every value, like Promise.all; if any rejects, throws the first failure in argument order (not in time). */
export async function allInOrder<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled(values);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}

/**
 * A read started now and awaited later, perhaps never (the request may fail first): its failure
 * is then left to whoever awaits it, instead of crashing the process as an unhandled rejection.
 */
export function startEarly<T>(read: Promise<T>): Promise<T> {
  read.catch(() => {});
  return read;
}
