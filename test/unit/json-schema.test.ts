import { parseSchema, schemaErrors } from '../../shared/domain/json-schema';

const schema = {
  type: 'object',
  required: ['name', 'size'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
    size: { type: 'integer', minimum: 1, maximum: 10 },
    colour: { enum: ['red', 'blue'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    kind: { oneOf: [{ const: 'a' }, { const: 'b' }] },
    nonEmpty: { not: { const: '' } },
  },
};

describe('schemaErrors', () => {
  it('accepts a value that matches', () => {
    expect(schemaErrors(schema, { name: 'abc', size: 3, colour: 'red', tags: ['x'], ratio: 0.5, id: 7, kind: 'a', nonEmpty: 'x' })).toEqual([]);
  });

  it.each([
    ['a value of the wrong type', [], '$: must be of type object'],
    ['a missing required property', { name: 'abc' }, '$: must have property size'],
    ['an extra property', { name: 'abc', size: 1, extra: true }, '$.extra: no value is allowed here'],
    ['a string too short', { name: 'a', size: 1 }, '$.name: must be at least 2 characters'],
    ['a string too long', { name: 'abcdef', size: 1 }, '$.name: must be at most 5 characters'],
    ['a string off its pattern', { name: 'AB', size: 1 }, '$.name: must match ^[a-z]+$'],
    ['a number that is not an integer', { name: 'ab', size: 1.5 }, '$.size: must be of type integer'],
    ['a number under the minimum', { name: 'ab', size: 0 }, '$.size: must be >= 1'],
    ['a number over the maximum', { name: 'ab', size: 11 }, '$.size: must be <= 10'],
    ['a value outside the enum', { name: 'ab', size: 1, colour: 'green' }, '$.colour: must be one of ["red","blue"]'],
    ['an array item of the wrong type', { name: 'ab', size: 1, tags: ['x', 2] }, '$.tags[1]: must be of type string'],
    ['an array too long', { name: 'ab', size: 1, tags: ['x', 'y', 'z'] }, '$.tags: must have at most 2 items'],
    ['a number on an exclusive bound', { name: 'ab', size: 1, ratio: 1 }, '$.ratio: must be < 1'],
    ['a value matching no anyOf branch', { name: 'ab', size: 1, id: true }, '$.id: must match at least one of anyOf'],
    ['a value matching no oneOf branch', { name: 'ab', size: 1, kind: 'c' }, '$.kind: must match exactly one of oneOf'],
    ['a value matching not', { name: 'ab', size: 1, nonEmpty: '' }, '$.nonEmpty: must not match not'],
  ])('reports %s', (_case, value, error) => {
    expect(schemaErrors(schema, value)).toContain(error);
  });

  it('treats an invalid pattern as matching nothing rather than failing', () => {
    expect(schemaErrors({ type: 'string', pattern: '(' }, 'x')).toEqual(['$: must match (']);
  });
});

describe('parseSchema', () => {
  it('accepts a JSON object or boolean and refuses anything else', () => {
    expect(parseSchema('{"type":"object"}')).toEqual({ schema: { type: 'object' } });
    expect(parseSchema('true')).toEqual({ schema: true });
    expect(parseSchema('[1]')).toEqual({ problem: 'must be a JSON-encoded schema object' });
    expect(parseSchema('{oops')).toHaveProperty('problem');
  });
});
