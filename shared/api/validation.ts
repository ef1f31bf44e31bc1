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
