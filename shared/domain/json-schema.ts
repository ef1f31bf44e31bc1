/**
 * A small JSON Schema checker for feature values: the keywords people put in a value schema
 * (type, enum, const, properties, required, additionalProperties, items, bounds, pattern, anyOf,
 * oneOf, allOf, not). Other keywords, `$ref` included, are ignored rather than guessed at; a full
 * validator (ajv) would be a new runtime dependency for one optional, enterprise-only field.
 */

type Schema = Record<string, unknown> | boolean;

const typeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

const matchesType = (value: unknown, type: string) => {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
};

/** A schema with a pattern that is not a valid regular expression matches nothing, rather than failing the request. */
const patternMatches = (pattern: string, value: string) => {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return false;
  }
};

const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The problems of `value` against `schema`, one `path: message` line each; empty when it matches. */
export function schemaErrors(schema: Schema, value: unknown, path = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: no value is allowed here`];
  const errors: string[] = [];
  const add = (message: string) => errors.push(`${path}: ${message}`);

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => matchesType(value, type))) {
      add(`must be of type ${types.join(' or ')}`);
      return errors;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => equal(option, value))) {
    add(`must be one of ${JSON.stringify(schema.enum)}`);
  }
  if ('const' in schema && !equal(schema.const, value)) add(`must be ${JSON.stringify(schema.const)}`);

  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) add(`must be >= ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) add(`must be <= ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) add(`must be > ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) add(`must be < ${schema.exclusiveMaximum}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) add(`must be at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) add(`must be at most ${schema.maxLength} characters`);
    if (typeof schema.pattern === 'string' && !patternMatches(schema.pattern, value)) add(`must match ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) add(`must have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) add(`must have at most ${schema.maxItems} items`);
    if (schema.items !== undefined && !Array.isArray(schema.items)) {
      value.forEach((item, i) => errors.push(...schemaErrors(schema.items as Schema, item, `${path}[${i}]`)));
    }
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
    for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      if (!(name in value)) add(`must have property ${name}`);
    }
    for (const [name, item] of Object.entries(value)) {
      if (name in properties) errors.push(...schemaErrors(properties[name], item, `${path}.${name}`));
      else if (schema.additionalProperties !== undefined) {
        errors.push(...schemaErrors(schema.additionalProperties as Schema, item, `${path}.${name}`));
      }
    }
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf as Schema[]) errors.push(...schemaErrors(part, value, path));
  if (Array.isArray(schema.anyOf) && !(schema.anyOf as Schema[]).some((part) => schemaErrors(part, value, path).length === 0)) {
    add('must match at least one of anyOf');
  }
  if (Array.isArray(schema.oneOf) && (schema.oneOf as Schema[]).filter((part) => schemaErrors(part, value, path).length === 0).length !== 1) {
    add('must match exactly one of oneOf');
  }
  if (schema.not !== undefined && schemaErrors(schema.not as Schema, value, path).length === 0) add('must not match not');
  return errors;
}

/** The schema in a `jsonSchema` field, or a message saying why it is not one. */
export function parseSchema(text: string): { schema: Schema } | { problem: string } {
  try {
    const schema = JSON.parse(text);
    if (typeof schema === 'boolean' || isObject(schema)) {
      return { schema };
    }
    return { problem: 'must be a JSON-encoded schema object' };
  } catch (error) {
    return { problem: `must be a JSON-encoded schema object (${(error as Error).message})` };
  }
}
