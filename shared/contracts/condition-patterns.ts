import safeRegex from 'safe-regex2';
import * as z from './zod';

/**
 * Regular expressions inside targeting conditions. SDKs, and remote evaluation on this server, run
 * them with a backtracking engine, against attributes anyone can send: a pattern with nested
 * quantifiers such as `^(a+)+$` takes seconds on a few dozen characters. Such patterns are refused
 * when a condition is written, which GrowthBook does not do (see docs, Compatibility).
 */

/** The operators whose operand is a pattern: GrowthBook's `$regex` and `$regexi`, and the `$notRegex` forms newer SDKs add. */
const REGEX_OPERATORS = new Set(['$regex', '$regexi', '$notRegex', '$notRegexi']);

/** More quantifiers than this in one pattern is refused too: each one multiplies the work on a long attribute. */
const MAX_QUANTIFIERS = 25;

const compiles = (pattern: string) => {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
};

/** Every pattern a parsed condition gives a regex operator, at any depth (inside `$and`, `$not`, `$elemMatch`, ...). */
function regexOperands(node: unknown, into: string[]): string[] {
  if (Array.isArray(node)) node.forEach((item) => regexOperands(item, into));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (REGEX_OPERATORS.has(key) && typeof value === 'string') into.push(value);
      else regexOperands(value, into);
    }
  }
  return into;
}

/**
 * The first pattern in a parsed condition that may backtrack catastrophically (star height above one,
 * as safe-regex2 judges it, or more than 25 quantifiers), or that safe-regex2 cannot parse (a lookbehind),
 * or undefined. A pattern that does not compile is left alone: SDKs evaluate it as false, at no cost,
 * and GrowthBook stores it.
 */
export function catastrophicPattern(condition: unknown): string | undefined {
  return regexOperands(condition, []).find((pattern) => compiles(pattern) && !safeRegex(pattern, { limit: MAX_QUANTIFIERS }));
}

/** The message a condition with a catastrophic pattern is refused with. */
const catastrophicPatternMessage = (pattern: string) =>
  `has the pattern ${JSON.stringify(pattern)}, which may backtrack catastrophically (a quantified group that holds a quantifier, ` +
  `such as (a+)+, or more than ${MAX_QUANTIFIERS} quantifiers) or cannot be checked (a lookbehind): rewrite it`;

/** The check every stored condition's schema carries: a JSON condition text whose patterns are all safe (see catastrophicPattern). */
export const safePatterns = z.superRefine((text: string, ctx) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return; // "" for everyone; the schema's own check refuses text that is not JSON
  }
  const pattern = catastrophicPattern(parsed);
  if (pattern !== undefined) ctx.addIssue({ code: 'custom', message: catastrophicPatternMessage(pattern), input: text });
});
