import { postgreSplitterOptions, splitQuery } from 'dbgate-query-splitter';
import * as z from './zod';

// DuckDB and Athena (Trino) quote alike for this purpose: '' strings, "" names, -- and /* */ comments
// (and DuckDB's $$ strings, which Trino does not have and so never meets).
const splitter = { ...postgreSplitterOptions, ignoreComments: true };
const onlyComments = (text: string) => text.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, '').trim() === '';

/** How many statements `sql` holds: `;` separates them outside strings, quoted names and comments. */
export function sqlStatementCount(sql: string): number {
  return splitQuery(sql, splitter).filter((part) => typeof part === 'string' && !onlyComments(part)).length;
}

/**
 * SQL that the snapshot query builder embeds as a subquery (a fact table's, an assignment query's):
 * one statement, because a `;` would end the builder's query and let further statements run. The
 * engine checks again with its own parser before it runs anything; this check answers at write time.
 */
export const embeddedSql = z.string().check(
  z.trim(),
  z.minLength(1),
  z.maxLength(100_000),
  z.refine((sql) => sqlStatementCount(sql) <= 1, {
    message: 'must be one SQL statement (a SELECT): no ";" followed by another statement',
  }),
);
