import { InvalidInputError } from '../../shared/errors';
import {
  SDK_LANGUAGES,
  connectionCapabilities,
  defaultSdkVersion,
  latestSdkVersion,
  resolveSdkVersion,
  sdkCapabilities,
  sdkVersionsOf,
} from '../../shared/payload/sdk-versions';
import { capabilitySettings, scrubForCapabilities } from '../../shared/payload/scrub';
import type { PayloadEntry, SdkFeature } from '../../shared/payload/types';
import { reducePrerequisites } from '../../shared/payload/prerequisites';

// Facts from GrowthBook's sdk-versions tables and its own tests of getConnectionSDKCapabilities.

describe('SDK capabilities', () => {
  it('gives javascript at its default version (0.31.0) what GrowthBook lists for it', () => {
    expect(new Set(sdkCapabilities('javascript'))).toEqual(
      new Set([
        'visualEditorDragDrop',
        'remoteEval',
        'semverTargeting',
        'visualEditorJS',
        'visualEditor',
        'bucketingV2',
        'streaming',
        'encryption',
        'looseUnmarshalling',
      ]),
    );
  });

  it.each([
    ['javascript', '0.33.0', false],
    ['javascript', '0.34.0', true],
    ['nodejs', '0.34.0', true],
    ['react', '0.23.0', false],
    ['react', '0.24.0', true],
    ['python', '1.0.0', false],
    ['python', '1.1.0', true],
    ['php', '1.5.0', false],
    ['php', '1.6.0', true],
    ['go', '0.1.9', false],
    ['go', '0.2.0', true],
    ['android', '1.1.43', false],
    ['android', '1.1.44', true],
    ['ios', '1.0.48', false],
    ['ios', '1.0.49', true],
    ['flutter', '3.1.0', false],
    ['flutter', '3.2.0', true],
    ['csharp', '1.0.6', false],
    ['csharp', '1.1.0', true],
    ['ruby', '1.2.2', false],
    ['java', '0.9.2', false],
    ['java', '0.9.3', true],
  ])('%s %s supports prerequisites: %s', (language, version, supported) => {
    expect(sdkCapabilities(language, version).includes('prerequisites')).toBe(supported);
  });

  it('compares versions numerically, as the SDK does: 0.10.x is after 0.9.x, and a leading v is ignored', () => {
    expect(sdkCapabilities('java', '0.10.6')).toEqual(expect.arrayContaining(['caseInsensitiveRegex', 'prerequisites', 'streaming']));
    expect(sdkCapabilities('java', 'v0.10.0')).toContain('prerequisites');
    expect(sdkCapabilities('flutter', '3.10.0')).toContain('stickyBucketing');
  });

  it("keeps GrowthBook's spellings: java and csharp never get remoteEval, which their tables spell remoteEvaluation", () => {
    expect(sdkCapabilities('java', latestSdkVersion('java'))).not.toContain('remoteEval');
    expect(sdkCapabilities('csharp', '1.1.3')).not.toContain('remoteEval');
  });

  it('reads a language GrowthBook does not know as other, which only unmarshals loosely', () => {
    expect(sdkCapabilities('cobol', '9.9.9')).toEqual(['looseUnmarshalling']);
    expect(sdkCapabilities(undefined)).toEqual(['looseUnmarshalling']);
    expect(sdkCapabilities('constructor')).toEqual(['looseUnmarshalling']);
  });

  it('gives a version older than every listed one nothing (edge-cloudflare at its 0.1.10 default)', () => {
    expect(defaultSdkVersion('edge-cloudflare')).toBe('0.1.10');
    expect(sdkCapabilities('edge-cloudflare')).toEqual([]);
    expect(sdkCapabilities('edge-cloudflare', '0.1.11')).toContain('prerequisites');
  });

  it('knows the newest versions of each language', () => {
    expect(latestSdkVersion('python')).toBe('1.4.5');
    expect(latestSdkVersion('cobol')).toBe('0.0.0');
    expect(sdkVersionsOf('javascript')).toContain('1.8.0');
    expect(SDK_LANGUAGES).toEqual(expect.arrayContaining(['javascript', 'nodejs', 'nextjs', 'nocode-webflow', 'edge-fastly', 'rust', 'roku', 'other']));
    expect(SDK_LANGUAGES).toHaveLength(25);
  });
});

describe('connectionCapabilities', () => {
  it('uses the sdkVersion of a single-language connection', () => {
    expect(connectionCapabilities({ languages: ['javascript'], sdkVersion: '0.33.0' }).has('prerequisites')).toBe(false);
    expect(connectionCapabilities({ languages: ['javascript'], sdkVersion: '1.6.4' }).has('prerequisites')).toBe(true);
  });

  it('intersects the languages of a multi-language connection at their default versions, reading loose unmarshalling as bucketingV2', () => {
    // GrowthBook's own test: javascript + python gives bucketingV2 and encryption.
    expect(connectionCapabilities({ languages: ['javascript', 'python'], sdkVersion: '1.6.4' })).toEqual(new Set(['bucketingV2', 'encryption']));
    // other has only looseUnmarshalling, which counts as bucketingV2 here.
    expect(connectionCapabilities({ languages: ['other', 'nocode-other'] })).toEqual(new Set(['looseUnmarshalling', 'bucketingV2']));
  });

  it('reads a connection without languages as other', () => {
    expect(connectionCapabilities({ languages: [] })).toEqual(new Set(['looseUnmarshalling']));
  });
});

describe('resolveSdkVersion', () => {
  const fails = (body: Parameters<typeof resolveSdkVersion>[0], current?: Parameters<typeof resolveSdkVersion>[1]) => {
    try {
      resolveSdkVersion(body, current);
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      return (error as Error).message;
    }
    throw new Error('expected a refusal');
  };

  it('defaults a new connection to the newest version of its language', () => {
    expect(resolveSdkVersion({ language: 'python' })).toEqual({ languages: ['python'], sdkVersion: '1.4.5' });
  });

  it('refuses a language GrowthBook does not know, naming it', () => {
    expect(fails({ language: 'cobol' })).toMatch(/\[language\] language cobol is not supported/);
  });

  it('refuses a version the language does not have, naming both', () => {
    expect(fails({ language: 'python', sdkVersion: '9.9.9' })).toMatch(/\[sdkVersion\] SDK version 9\.9\.9 does not exist for python/);
  });

  it('on update keeps the language and version, and checks a new language against the kept version, as GrowthBook does', () => {
    const current = { languages: ['javascript'], sdkVersion: '1.6.4' };
    expect(resolveSdkVersion({}, current)).toEqual({ sdkVersion: '1.6.4' });
    expect(resolveSdkVersion({ language: '' }, current)).toEqual({ sdkVersion: '1.6.4' });
    expect(fails({ language: 'python' }, current)).toMatch(/SDK version 1\.6\.4 does not exist for python/);
    expect(resolveSdkVersion({ language: 'python', sdkVersion: '1.2.1' }, current)).toEqual({ languages: ['python'], sdkVersion: '1.2.1' });
    expect(resolveSdkVersion({}, { languages: ['javascript'], sdkVersion: '' })).toEqual({ sdkVersion: '1.8.0' });
  });

  it('refuses a setting the version cannot serve', () => {
    expect(fails({ language: 'javascript', sdkVersion: '0.0.0', encryptPayload: true })).toMatch(/\[encryptPayload\] needs encryption.*upgrade to 1\.8\.0/);
    expect(fails({ language: 'nodejs', remoteEvalEnabled: true })).toMatch(/\[remoteEvalEnabled\] needs remoteEval, which no nodejs SDK version supports/);
    expect(fails({ language: 'python', includeVisualExperiments: true })).toMatch(/\[includeVisualExperiments\]/);
    expect(fails({ language: 'react', sdkVersion: '0.25.0', includeRedirectExperiments: true })).toMatch(/\[includeRedirectExperiments\] needs redirects/);
    expect(resolveSdkVersion({ language: 'javascript', sdkVersion: '0.20.0', encryptPayload: true }).sdkVersion).toBe('0.20.0');
    // Switched off is always fine.
    expect(resolveSdkVersion({ language: 'other', encryptPayload: false }).sdkVersion).toBe('0.0.0');
  });
});

describe('scrubForCapabilities', () => {
  const features: Record<string, SdkFeature> = {
    plain: { defaultValue: 1, rules: [{ id: 'r1', force: 2, condition: { a: 1 }, hashVersion: 2, seed: 's', metadata: { tags: ['t'] } }], metadata: { tags: ['t'] } },
    gated: { defaultValue: true, rules: [{ parentConditions: [{ id: 'parent', condition: { value: true }, gate: true }] }] },
    ruleGated: { defaultValue: 'a', rules: [{ force: 'b' }, { force: 'c', parentConditions: [{ id: 'parent', condition: { value: true } }] }] },
    heldOut: { defaultValue: 'a', rules: [{ force: 'old', parentConditions: [{ id: '$holdout:h1', condition: { value: 'holdoutcontrol' } }] }, { force: 'new' }] },
    '$holdout:h1': { defaultValue: 'genpop', rules: [{ variations: ['holdoutcontrol', 'holdouttreatment'], weights: [0.5, 0.5] }] },
  };
  const all = connectionCapabilities({ languages: ['javascript'], sdkVersion: '1.6.4' });
  const old = connectionCapabilities({ languages: ['javascript'], sdkVersion: '0.33.0' });

  it('leaves a payload alone for an SDK that can read all of it', () => {
    const payload = { features };
    expect(scrubForCapabilities(payload, all)).toBe(payload);
  });

  it('without prerequisites, leaves out every feature with a prerequisite and the holdout rules, keeping the holdout features out too', () => {
    const scrubbed = scrubForCapabilities({ features }, old).features;

    expect(Object.keys(scrubbed).sort()).toEqual(['heldOut', 'plain']);
    expect(scrubbed.heldOut.rules).toEqual([{ force: 'new' }]);
    expect(scrubbed.plain).toBe(features.plain);
  });

  it('without prerequisites or redirects, leaves out the auto experiments that need them', () => {
    const experiments = [{ key: 'a' }, { key: 'b', parentConditions: [{ id: 'p', condition: {} }] }, { key: 'c', variations: [{ urlRedirect: 'https://x' }] }];

    // javascript 0.33.0 has neither.
    expect(scrubForCapabilities({ features: {}, experiments }, old).experiments).toEqual([{ key: 'a' }]);
    expect(scrubForCapabilities({ features: {}, experiments }, connectionCapabilities({ languages: ['javascript'], sdkVersion: '0.35.0' })).experiments).toEqual([
      { key: 'a' },
      { key: 'b', parentConditions: [{ id: 'p', condition: {} }] },
    ]);
  });

  it('without loose unmarshalling, keeps only the keys the SDK reads (python 1.0.0)', () => {
    const scrubbed = scrubForCapabilities({ features: { plain: features.plain } }, connectionCapabilities({ languages: ['python'], sdkVersion: '1.0.0' })).features;

    expect(scrubbed).toEqual({ plain: { defaultValue: 1, rules: [{ id: 'r1', force: 2, condition: { a: 1 }, hashVersion: 2, seed: 's' }] } });
  });

  it('turns saved-group references off for an SDK that cannot resolve them', () => {
    expect(capabilitySettings({ savedGroupReferencesEnabled: true }, old).savedGroupReferencesEnabled).toBe(false);
    expect(capabilitySettings({ savedGroupReferencesEnabled: true }, all).savedGroupReferencesEnabled).toBe(true);
  });
});

describe('reducePrerequisites', () => {
  const entry = (over: Partial<PayloadEntry> = {}): PayloadEntry => ({
    project: '',
    valueType: 'boolean',
    defaultValue: 'true',
    rules: [],
    prerequisites: [],
    ...over,
  });
  const force = (prerequisites?: Array<{ id: string; condition: string }>) =>
    ({ id: 'r', type: 'force', value: 'true', enabled: true, prerequisites }) as PayloadEntry['rules'][number];

  it('drops a prerequisite on a parent that is on whatever the user, and the feature of one that is off', () => {
    const reduced = reducePrerequisites(
      {
        on: entry(),
        off: entry({ defaultValue: 'false' }),
        onChild: entry({ prerequisites: ['on'] }),
        offChild: entry({ prerequisites: ['off'] }),
        missingChild: entry({ prerequisites: ['not-served'] }),
        grandChild: entry({ prerequisites: ['onChild'] }),
        offGrandChild: entry({ prerequisites: ['offChild'] }),
      },
      [],
    );

    expect(Object.keys(reduced).sort()).toEqual(['grandChild', 'off', 'on', 'onChild']);
    expect(reduced.onChild.prerequisites).toEqual([]);
    expect(reduced.grandChild.prerequisites).toEqual([]);
  });

  it('keeps a prerequisite on a parent with rules (or a parent of one), for the SDK to evaluate', () => {
    const reduced = reducePrerequisites(
      { ruled: entry({ rules: [force()] }), child: entry({ prerequisites: ['ruled'] }), grandChild: entry({ prerequisites: ['child'] }) },
      [],
    );

    expect(reduced.child.prerequisites).toEqual(['ruled']);
    expect(reduced.grandChild.prerequisites).toEqual(['child']);
  });

  it('reduces rule prerequisites with their own conditions: a passing one goes, a failing one (or an empty condition) drops the rule', () => {
    const reduced = reducePrerequisites(
      {
        on: entry(),
        count: entry({ valueType: 'number', defaultValue: '3' }),
        passing: entry({ rules: [force([{ id: 'count', condition: '{"value": {"$gt": 2}}' }])] }),
        failing: entry({ rules: [force([{ id: 'on', condition: '{"value": false}' }])] }),
        empty: entry({ rules: [force([{ id: 'on', condition: '{}' }])] }),
      },
      [],
    );

    expect(reduced.passing.rules).toEqual([expect.objectContaining({ id: 'r', prerequisites: [] })]);
    expect(reduced.failing.rules).toEqual([]);
    expect(reduced.empty.rules).toEqual([]);
  });

  it("counts a parent of another project as not served, as GrowthBook filters the connection's projects first", () => {
    const reduced = reducePrerequisites({ parent: entry({ project: 'prj_b' }), child: entry({ project: 'prj_a', prerequisites: ['parent'] }) }, ['prj_a']);

    expect(reduced).toEqual({});
  });

  it('drops features in a prerequisite cycle', () => {
    expect(reducePrerequisites({ a: entry({ prerequisites: ['b'] }), b: entry({ prerequisites: ['a'] }) }, [])).toEqual({});
  });
});
