import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';

/**
 * Stack traces mapped back to the TypeScript sources, when an error is logged.
 *
 * Lambda runs each function's bundle without `--enable-source-maps`: with it, Node reads and parses
 * the bundle's source map at every cold start, whether an error ever needs it or not (13 % of the bare
 * handler's import and 20 % of `getFeature`'s, counted in instructions). Here a bundle's map
 * (`index.mjs.map`, next to it) is read the first time a stack that runs through the bundle is
 * logged, then kept for the container's life.
 *
 * Frames of files without a map (the sources themselves, as the local server and tests run them, or
 * Node's own modules) are left as they are.
 */
const maps = new Map<string, SourceMap | undefined>();

/** The map of a built file, or undefined when it has none or it cannot be read: logging an error must never fail. */
function mapOf(file: string): SourceMap | undefined {
  if (!maps.has(file)) {
    const mapFile = `${file}.map`;
    try {
      maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
    } catch {
      maps.set(file, undefined);
    }
  }
  return maps.get(file);
}

/** A frame's location in a built file: `file:///var/task/index.mjs:2:3456` or `/var/task/index.mjs:2:3456`. */
const builtLocation = /(?:file:\/\/)?(\/[^\s():]+\.m?js):(\d+):(\d+)/g;

/** `stack` with each location in a bundle replaced by its place in the sources (`shared/api/endpoint.ts:111:7`). */
export function sourceMappedStack(stack: string): string {
  return stack.replace(builtLocation, (location, file: string, line: string, column: string) => {
    // Stack lines and columns count from 1, source map entries from 0.
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return location;
    return `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}

/** Maps `error`'s stack, and those of its causes, in place; an error already mapped stays as it is. */
export function mapErrorStack(error: Error): Error {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 10; current = current.cause, depth++) {
    if (typeof current.stack === 'string') current.stack = sourceMappedStack(current.stack);
  }
  return error;
}
