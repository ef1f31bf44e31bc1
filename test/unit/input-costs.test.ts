import { assertStorableBody, MAX_BODY_DEPTH } from '../../shared/api/validation';
import { catastrophicPattern } from '../../shared/contracts/condition-patterns';

const nest = (depth: number): unknown => (depth === 0 ? 1 : depth % 2 ? { a: nest(depth - 1) } : [nest(depth - 1)]);
const refusal = (body: unknown) => {
  try {
    assertStorableBody(body);
    return undefined;
  } catch (error) {
    return error as Error & { details?: { issues: Array<{ path: string }> } };
  }
};

describe('the body check', () => {
  it(`takes a body of exactly ${MAX_BODY_DEPTH} levels of objects and arrays, and scalars of any kind`, () => {
    expect(refusal(nest(MAX_BODY_DEPTH))).toBeUndefined();
    expect(refusal({ a: [1, 'x', null, true, { b: [] }] })).toBeUndefined();
    expect(refusal('text')).toBeUndefined();
  });

  it(`refuses one more level as invalid input, naming the path of the level past ${MAX_BODY_DEPTH}`, () => {
    const error = refusal(nest(MAX_BODY_DEPTH + 1));

    expect(error?.name).toBe('InvalidInputError');
    expect(error?.message).toMatch(new RegExp(`^Request body: \\[a\\.0\\.a(\\.\\w+)*\\] is nested deeper than ${MAX_BODY_DEPTH} levels`));
    expect(error?.details?.issues[0].path.split('.')).toHaveLength(MAX_BODY_DEPTH);
  });

  it('walks a body nested 100,000 deep without running out of stack', () => {
    const text = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

    expect(refusal(JSON.parse(text))?.name).toBe('InvalidInputError');
  });

  it.each([
    ['{"__proto__":{"admin":true}}', '__proto__'],
    ['{"a":[{"b":{"__proto__":1}}]}', 'a.0.b.__proto__'],
    ['{"constructor":"x"}', 'constructor'],
    ['{"a":{"constructor":{"name":"Object"}}}', 'a.constructor'],
  ])('refuses %s, naming %s', (text, path) => {
    expect(refusal(JSON.parse(text))?.message).toBe(`Request body: [${path}] the key "${path.split('.').pop()}" is not accepted in a request body`);
  });

  it('takes keys that only look alike, and the words as values', () => {
    expect(refusal(JSON.parse('{"prototype":1,"proto":2,"Constructor":3,"a":"__proto__","b":["constructor"]}'))).toBeUndefined();
  });
});

describe('catastrophicPattern', () => {
  it.each([
    [{ email: { $regex: '^(a+)+$' } }, '^(a+)+$'],
    [{ $and: [{ a: { $regexi: '(x+x+)+y' } }] }, '(x+x+)+y'],
    [{ a: { $not: { $regex: '(a*)*' } } }, '(a*)*'],
    [{ a: { $elemMatch: { $notRegex: '^(\\d+)*$' } } }, '^(\\d+)*$'],
    [{ a: { $regex: 'ok' }, b: { $regex: '(?<=x)y' } }, '(?<=x)y'],
    [{ a: { $regex: Array.from({ length: 26 }, () => 'a?').join('') } }, Array.from({ length: 26 }, () => 'a?').join('')],
  ])('finds the slow pattern in %j', (condition, pattern) => {
    expect(catastrophicPattern(condition)).toBe(pattern);
  });

  it.each([
    [{ email: { $regex: '@example\\.com$' } }],
    [{ url: { $regexi: '^https?://(www\\.)?example\\.com/(a|b)/.*' } }],
    [{ a: { $regex: '(' } }], // does not compile: SDKs match nothing, at no cost
    [{ a: { $eq: '^(a+)+$' } }], // not a pattern
    [{ $regex: 5 }],
  ])('finds none in %j', (condition) => {
    expect(catastrophicPattern(condition)).toBeUndefined();
  });
});
