import * as z from 'zod/mini';
import { InvalidInputError } from '../errors';

export type InputLocation = 'body' | 'query' | 'params';

const prefixes: Record<InputLocation, string> = {
  body: 'Request body:',
  query: 'Querystring:',
  params: 'Request params:',
};

/** One line per failing field, `[path.to.field] what is wrong`. */
export function describeIssues(issues: z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return path ? `[${path}] ${issue.message}` : issue.message;
  });
}

/** A 400 whose message lists each failing field behind the location's prefix. */
export function validationError(location: InputLocation, issues: z.core.$ZodIssue[]): InvalidInputError {
  const lines = describeIssues(issues);
  return new InvalidInputError(lines.map((line) => `${prefixes[location]} ${line}`).join('\n'), {
    location,
    issues: issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
  });
}

/** Parses `value` with `schema`, or raises the 400 that names every failing field. */
export function parseInput<S extends z.core.$ZodType>(location: InputLocation, schema: S, value: unknown): z.output<S> {
  const result = z.safeParse(schema, value);
  if (!result.success) throw validationError(location, result.error.issues);
  return result.data;
}

/** DynamoDB keeps at most 32 levels of maps and lists in an item; a body nested deeper could never be stored. */
export const MAX_BODY_DEPTH = 32;

/**
 * Keys no body may hold: zod drops `__proto__` silently (it sets the prototype instead), and DynamoDB's
 * marshall cannot store an object whose own `constructor` is not Object's. GrowthBook's form parser (qs) drops both.
 */
const REFUSED_KEYS = new Set(['__proto__', 'constructor']);

/**
 * Raises the 400 for a parsed JSON body that cannot be stored as it is: nested deeper than
 * MAX_BODY_DEPTH levels (the body itself is the first), or holding a key `__proto__` or `constructor`.
 * Walks without recursion, so a body nested thousands deep costs no stack.
 */
export function assertStorableBody(body: unknown): void {
  const pending: Array<{ value: unknown; path: string[] }> = [{ value: body, path: [] }];
  while (pending.length) {
    const { value, path } = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_BODY_DEPTH) {
      throw refused(path, `is nested deeper than ${MAX_BODY_DEPTH} levels, the most a stored item can hold`);
    }
    for (const [key, child] of Object.entries(value)) {
      if (REFUSED_KEYS.has(key)) throw refused([...path, key], `the key "${key}" is not accepted in a request body`);
      pending.push({ value: child, path: [...path, key] });
    }
  }
}

const refused = (path: string[], message: string) =>
  validationError('body', [{ code: 'custom', path, message, input: undefined } as z.core.$ZodIssue]);
