declare module 'dirty-json' {
  /** Parses JSON with common mistakes (unquoted keys, single quotes, trailing commas) repaired. */
  export function parse(text: string): unknown;
}
