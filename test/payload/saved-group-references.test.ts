import { referencedGroupIds, savedGroupValues } from '../../shared/payload/saved-group-references';
import { hashSecure } from '../../shared/payload/hashing';
import type { PayloadReferences, SdkFeature } from '../../shared/payload/types';

const refs = (attributes: Record<string, string>): PayloadReferences => ({
  savedGroups: new Map([
    ['grp_b', { id: 'grp_b', type: 'list', attributeKey: 'email', values: ['a@x.io'] }],
    ['grp_a', { id: 'grp_a', type: 'list', attributeKey: 'id', values: ['1', '2'] }],
  ]),
  experiments: new Map(),
  attributes: new Map(Object.entries(attributes)) as PayloadReferences['attributes'],
});

const features: Record<string, SdkFeature> = {
  f1: { defaultValue: 1, rules: [{ condition: { id: { $inGroup: 'grp_a' } } }] },
  f2: { defaultValue: 2, rules: [{ parentConditions: [{ id: 'f1', condition: { email: { $notInGroup: 'grp_b' } } }] }, { condition: { $or: [{ x: { $inGroup: 'gone' } }] } }] },
  f3: { defaultValue: 3 },
};

describe('saved group references', () => {
  it('finds every group a rule condition or parent condition names, in code-point order', () => {
    expect(referencedGroupIds(features)).toEqual(['gone', 'grp_a', 'grp_b']);
  });

  it('sends number values as numbers, a missing group empty, and secure values hashed', () => {
    const map = savedGroupValues(features, refs({ id: 'number', email: 'secureString' }), 'salt');

    expect(map).toEqual({ gone: [], grp_a: [1, 2], grp_b: [hashSecure('salt', 'a@x.io')] });
  });

  it('leaves secure values in clear when the connection does not hash them', () => {
    expect(savedGroupValues(features, refs({ email: 'secureString' })).grp_b).toEqual(['a@x.io']);
  });
});
