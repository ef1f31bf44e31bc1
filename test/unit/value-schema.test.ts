import type { ValueType } from '../../shared/contracts/features';
import { newFeature } from '../../shared/domain/features';
import { compileValueSchema } from '../../shared/domain/value-schema';

/** A new feature whose default value is `value`, checked against `schema`; its 400 message when refused. */
async function refusal(schema: unknown, value: string, valueType: ValueType = 'json'): Promise<string | undefined> {
  const jsonSchema = typeof schema === 'string' ? schema : JSON.stringify(schema);
  try {
    await newFeature({ id: 'f', valueType, defaultValue: value, jsonSchema }, { environments: [], owner: { owner: '' } });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const mismatch = (problem: string) => `Request body: [defaultValue] does not match jsonSchema: ${problem}`;

describe('feature values checked against their jsonSchema, as GrowthBook checks them with Ajv', () => {
  it.each([
    ['a $ref into definitions', { definitions: { size: { type: 'integer', minimum: 1 } }, properties: { size: { $ref: '#/definitions/size' } } }, '{"size":2}', '{"size":0}', '$.size: must be >= 1'],
    ['a $ref into $defs', { $defs: { size: { type: 'integer' } }, properties: { size: { $ref: '#/$defs/size' } } }, '{"size":2}', '{"size":1.5}', '$.size: must be integer'],
    ['patternProperties', { type: 'object', patternProperties: { '^n_': { type: 'number' } } }, '{"n_a":1,"s":"x"}', '{"n_a":"x"}', '$.n_a: must be number'],
    ['uniqueItems, whatever the key order', { type: 'array', uniqueItems: true }, '[{"a":1},{"a":2}]', '[{"a":1,"b":2},{"b":2,"a":1}]', '$: must NOT have duplicate items (items ## 0 and 1 are identical)'],
    ['multipleOf', { type: 'number', multipleOf: 0.5 }, '1.5', '1.2', '$: must be multiple of 0.5'],
    [
      'if/then/else',
      { type: 'object', if: { properties: { kind: { const: 'a' } } }, then: { required: ['a'] }, else: { required: ['b'] } },
      '{"kind":"c","b":1}',
      '{"kind":"a","b":1}',
      "$: must have required property 'a'",
    ],
    ['tuple items (draft-07 array form)', { type: 'array', items: [{ type: 'string' }, { type: 'number' }] }, '["x",1]', '["x","y"]', '$[1]: must be number'],
    ['additionalItems after a tuple', { type: 'array', items: [{ type: 'string' }], additionalItems: false }, '["x"]', '["x",1]', '$: must NOT have more than 1 items'],
    ['an enum of objects, whatever the key order', { enum: [{ a: 1, b: 2 }] }, '{"b":2,"a":1}', '{"a":1}', '$: must be equal to one of the allowed values'],
    ['a const object, whatever the key order', { const: { a: 1, b: 2 } }, '{"b":2,"a":1}', '{"a":2,"b":1}', '$: must be equal to constant'],
    ['additionalProperties, naming the property', { properties: { a: {} }, additionalProperties: false }, '{"a":1}', '{"a":1,"zz":2}', '$: must NOT have additional properties: zz'],
    [
      'a nested path, array indexes in brackets',
      { properties: { list: { type: 'array', items: { properties: { 'a/b': { type: 'string' } } } } } },
      '{"list":[{"a/b":"x"}]}',
      '{"list":[{},{"a/b":3}]}',
      '$.list[1].a/b: must be string',
    ],
  ])('checks %s', async (_keyword, schema, good, bad, problem) => {
    expect(await refusal(schema, good)).toBeUndefined();
    expect(await refusal(schema, bad)).toBe(mismatch(problem));
  });

  it('checks string and number features against the value they stand for', async () => {
    expect(await refusal({ type: 'string', pattern: '^[a-z]+$' }, 'abc', 'string')).toBeUndefined();
    expect(await refusal({ type: 'string', pattern: '^[a-z]+$' }, 'ABC', 'string')).toBe(mismatch('$: must match pattern "^[a-z]+$"'));
    expect(await refusal({ type: 'integer', maximum: 10 }, '11', 'number')).toBe(mismatch('$: must be <= 10'));
  });

  it.each([
    // GrowthBook's Ajv has no formats plugin and strictSchema off: it ignores formats and keywords it does not know.
    ['format, unchecked as GrowthBook leaves it', { type: 'string', format: 'email' }, 'not an e-mail', 'string'],
    ['prefixItems, a 2020-12 keyword draft-07 does not know', { type: 'array', prefixItems: [{ type: 'string' }] }, '[1]', 'json'],
    ['an unknown keyword', { type: 'object', 'x-owner': 'team-a' }, '{}', 'json'],
  ] as const)('accepts what GrowthBook accepts: %s', async (_case, schema, value, valueType) => {
    expect(await refusal(schema, value, valueType)).toBeUndefined();
  });

  it.each([
    ['not JSON', '{oops', /^Request body: \[jsonSchema\] is not valid JSON \(/],
    ['neither an object nor a boolean', '5', /^Request body: \[jsonSchema\] is not a schema Ajv compiles: schema must be object or boolean$/],
    ['an unknown type', '{"type":"text"}', /^Request body: \[jsonSchema\] is not a schema Ajv compiles: schema is invalid: data\/type must be equal to one of the allowed values/],
    ['a $ref to nothing', '{"$ref":"#/definitions/missing"}', /^Request body: \[jsonSchema\] is not a schema Ajv compiles: can't resolve reference #\/definitions\/missing/],
    ['a pattern that is not a regular expression', '{"type":"string","pattern":"("}', /^Request body: \[jsonSchema\] is not a schema Ajv compiles: Invalid regular expression/],
    // Ajv's draft-07 class does not load the 2020-12 meta-schema; GrowthBook's refuses every value of such a schema.
    ['a 2020-12 schema', '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}', /^Request body: \[jsonSchema\] is not a schema Ajv compiles: no schema with key or ref/],
    ['nested deeper than the stack', `${'{"items":'.repeat(5000)}{}${'}'.repeat(5000)}`, /^Request body: \[jsonSchema\] is not a schema Ajv compiles: Maximum call stack size exceeded$/],
  ])('refuses a jsonSchema %s with a 400 naming it', async (_case, schema, message) => {
    expect(await refusal(schema, 'x', 'string')).toMatch(message);
  });

  it.each([
    ['string', { maxLength: 3 }, 'must have a top-level "type" or "enum" for a string feature'],
    ['string', true, 'must have a top-level "type" or "enum" for a string feature'],
    ['number', { type: 'string' }, 'must have a top-level "type" of "number" or "integer" for a number feature'],
    ['number', { type: ['number', 'null'] }, 'must have a top-level "type" of "number" or "integer" for a number feature'],
    ['number', { enum: [1, '2'] }, 'must list only number values in its top-level "enum" for a number feature'],
  ] as const)('refuses, as GrowthBook does, a %s feature schema %j that does not say the type', async (valueType, schema, problem) => {
    expect(await refusal(schema, '1', valueType)).toBe(`Request body: [jsonSchema] ${problem}`);
  });

  it('takes a top-level enum of the type as saying it, and any schema on a json feature', async () => {
    expect(await refusal({ enum: [1, 2] }, '1', 'number')).toBeUndefined();
    expect(await refusal({ enum: ['a'] }, 'b', 'string')).toBe(mismatch('$: must be equal to one of the allowed values'));
    expect(await refusal({ maxLength: 3 }, '"abc"', 'json')).toBeUndefined();
  });

  it('refuses, rather than runs until the timeout, a check that takes exponential time', async () => {
    // Each definition refers twice to the one before: 2^60 checks of a0 for one value, a schema of 4 KB.
    const definitions: Record<string, unknown> = { a0: { type: 'number' } };
    for (let i = 1; i <= 60; i++) definitions[`a${i}`] = { allOf: [{ $ref: `#/definitions/a${i - 1}` }, { $ref: `#/definitions/a${i - 1}` }] };

    const message = await refusal({ type: 'number', definitions, $ref: '#/definitions/a60' }, '1', 'number');

    expect(message).toBe('Request body: [defaultValue] takes more than 2 s to check against jsonSchema');
  });

  it('refuses, rather than fails on, a value nested deeper than the stack under a recursive schema', async () => {
    const value = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;

    expect(await refusal({ type: 'array', items: { $ref: '#' } }, value)).toBe(
      'Request body: [defaultValue] cannot be checked against jsonSchema: Maximum call stack size exceeded',
    );
  });
});

describe('compileValueSchema', () => {
  it('compiles a schema text once per container', async () => {
    const text = '{"type":"object","required":["cached"]}';

    expect(await compileValueSchema(text)).toBe(await compileValueSchema(text));
  });

  it('compiles each schema in an Ajv of its own, so two schemas with one $id do not clash', async () => {
    const first = await compileValueSchema('{"$id":"https://example.com/value","type":"string"}');
    const second = await compileValueSchema('{"$id":"https://example.com/value","type":"number"}');

    expect('validate' in first && first.validate('x')).toBe(true);
    expect('validate' in second && second.validate(1)).toBe(true);
    expect('validate' in second && second.validate('x')).toBe(false);
  });
});
