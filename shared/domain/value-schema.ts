import { createContext, Script, type Context } from 'node:vm';
import type { ErrorObject, ValidateFunction } from 'ajv';

/** A feature's `jsonSchema` compiled, or why it cannot be. */
export type ValueSchema = { validate: ValidateFunction } | { problem: string };

/**
 * Compiled schemas by their text, for the life of the warm container. Bounded, oldest out first,
 * so a caller sending many distinct schemas cannot grow the container's memory without limit.
 */
const compiled = new Map<string, ValueSchema>();
const MAX_COMPILED = 100;

/**
 * Time budgets. A 100 KB schema (the most `jsonSchema` takes) of a few thousand branches takes Ajv
 * seconds to compile, and a schema of a few kilobytes whose definitions each refer twice to the
 * one before makes a check take exponential time: neither may hold a function until its timeout.
 */
export const COMPILE_BUDGET_MS = 3000;
export const CHECK_BUDGET_MS = 2000;

class OverBudgetError extends Error {}

// Made on the first check: a V8 context costs a cold start that checks nothing.
let budget: { context: Context; script: Script } | undefined;

/**
 * Runs `work` but stops it after `ms` (a vm script's timeout interrupts whatever JavaScript runs
 * during it, the functions it calls included), throwing OverBudgetError.
 */
function withinBudget<T>(work: () => T, ms: number): T {
  budget ??= { context: createContext({}), script: new Script('work()') };
  const { context, script } = budget;
  context.work = work;
  try {
    return script.runInContext(context, { timeout: Math.max(1, Math.round(ms)) }) as T;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new OverBudgetError();
    throw error;
  } finally {
    context.work = undefined;
  }
}

/**
 * A `jsonSchema` compiled as GrowthBook compiles it: Ajv's default draft-07 class with
 * `strictSchema: false`, so unknown keywords are ignored, and no formats plugin, so `format` is not
 * checked. A fresh Ajv per schema, as GrowthBook makes one per check: a schema's `$id` never clashes
 * with another's. Ajv is imported on the first schema only: in a bundle it is a file of its own
 * (see infra/esbuild-build.mjs), so no cold start of a request without a schema compiles it.
 */
export async function compileValueSchema(text: string): Promise<ValueSchema> {
  const known = compiled.get(text);
  if (known) return known;
  const { default: Ajv } = await import('ajv');
  let result: ValueSchema;
  try {
    const schema = JSON.parse(text);
    try {
      // No logger: Ajv would log a warning for every ignored keyword and format into the function's log.
      result = { validate: withinBudget(() => new Ajv({ strictSchema: false, logger: false }).compile(schema), COMPILE_BUDGET_MS) };
    } catch (error) {
      // Not cached: under load a fair schema may overrun once.
      if (error instanceof OverBudgetError) return { problem: `takes more than ${COMPILE_BUDGET_MS / 1000} s to compile` };
      // Ajv's own words (an unknown type, an unresolved $ref, a bad pattern); a stack overflow on a
      // deeply nested schema lands here too, as a refusal rather than a 500.
      result = { problem: `is not a schema Ajv compiles: ${(error as Error).message}` };
    }
  } catch (error) {
    result = { problem: `is not valid JSON (${(error as Error).message})` };
  }
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(text, result);
  return result;
}

/** Where an error is, `$.a.b[0]`, from Ajv's JSON pointer walked over the value (an array index is `[i]`). */
function pathOf(pointer: string, value: unknown): string {
  let path = '$';
  let at = value;
  for (const segment of pointer.split('/').slice(1).map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))) {
    path += Array.isArray(at) ? `[${segment}]` : `.${segment}`;
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[segment] : undefined;
  }
  return path;
}

/** Ajv's message, naming the property where Ajv's own words leave it out. */
const messageOf = (error: ErrorObject) =>
  error.keyword === 'additionalProperties' ? `${error.message}: ${error.params.additionalProperty}` : error.message;

/**
 * Why `value` is refused, `does not match jsonSchema: $.path: message` (Ajv stops at the first error,
 * as in GrowthBook); undefined when it matches. A check still running at `deadline` (epoch ms) is refused as too slow.
 */
export function valueSchemaProblem(validate: ValidateFunction, value: unknown, deadline = Date.now() + CHECK_BUDGET_MS): string | undefined {
  let valid: boolean;
  try {
    valid = withinBudget(() => validate(value) as boolean, deadline - Date.now());
  } catch (error) {
    if (error instanceof OverBudgetError) return `takes more than ${CHECK_BUDGET_MS / 1000} s to check against jsonSchema`;
    // A recursive schema over a value nested thousands deep overflows the stack: a refusal, not a 500.
    return `cannot be checked against jsonSchema: ${(error as Error).message}`;
  }
  if (valid) return undefined;
  const [error] = validate.errors ?? [];
  return `does not match jsonSchema: ${error ? `${pathOf(error.instancePath, value)}: ${messageOf(error)}` : 'invalid'}`;
}
