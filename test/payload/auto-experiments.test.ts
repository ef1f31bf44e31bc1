import { createHash } from 'node:crypto';
import { autoExperiments, type AutoExperimentOptions } from '../../shared/payload/auto-experiments';
import type { PayloadExperiment, PayloadReferences } from '../../shared/payload/types';
import type { StoredVisualChangeset } from '../../shared/contracts/visual-changesets';
import type { UrlRedirect } from '../../shared/contracts/url-redirects';

const date = '2024-01-01T00:00:00.000Z';

const experiment = (id: string, extra: Partial<PayloadExperiment> = {}): PayloadExperiment => ({
  id,
  trackingKey: `key-${id}`,
  name: `Name ${id}`,
  status: 'running',
  hashAttribute: 'id',
  hashVersion: 2,
  project: 'prj_a',
  variations: [
    { variationId: 'v0', key: '0', name: 'Control' },
    { variationId: 'v1', key: '1', name: 'Treatment' },
  ],
  phases: [{ coverage: 0.5, seed: 'seed', trafficSplit: [{ variationId: 'v0', weight: 0.5 }, { variationId: 'v1', weight: 0.5 }], targetingCondition: '{}' }],
  ...extra,
});

const changeset = (id: string, experimentId: string, treatmentCss = 'h1{}'): StoredVisualChangeset => ({
  id,
  experiment: experimentId,
  editorUrl: 'https://example.com/',
  urlPatterns: [{ type: 'simple', pattern: 'https://example.com/', include: true }],
  visualChanges: [
    { id: 'vc0', variation: 'v0', css: '', domMutations: [] },
    { id: 'vc1', variation: 'v1', css: treatmentCss, domMutations: [] },
  ],
  dateCreated: date,
  dateUpdated: date,
});

const redirect = (id: string, experimentId: string, treatmentUrl = 'https://example.com/new'): UrlRedirect => ({
  id,
  experiment: experimentId,
  urlPattern: 'https://example.com/old',
  destinationURLs: [
    { variation: 'v0', url: '' },
    { variation: 'v1', url: treatmentUrl },
  ],
  persistQueryString: false,
  dateCreated: date,
  dateUpdated: date,
});

const noRefs: PayloadReferences = { savedGroups: new Map(), experiments: new Map() };
const both: AutoExperimentOptions = { now: new Date(date), projects: [], includeVisualExperiments: true, includeRedirectExperiments: true };

function build(
  experiments: PayloadExperiment[],
  sources: { visual?: StoredVisualChangeset[]; redirects?: UrlRedirect[] },
  options: Partial<AutoExperimentOptions> = {},
  refs = noRefs,
) {
  return autoExperiments(
    { visualChangesets: sources.visual ?? [], urlRedirects: sources.redirects ?? [], experiments: new Map(experiments.map((e) => [e.id, e])) },
    refs,
    { ...both, ...options },
  );
}

describe('the experiments array', () => {
  it('is left out when the connection includes neither kind', () => {
    const result = build([experiment('e1')], { visual: [changeset('c1', 'e1')] }, { includeVisualExperiments: false, includeRedirectExperiments: false });

    expect(result).toBeUndefined();
  });

  it('puts redirect experiments first, as GrowthBook does (an SDK stops at the first redirect it follows)', () => {
    const result = build([experiment('e1'), experiment('e2')], { visual: [changeset('c1', 'e1')], redirects: [redirect('r1', 'e2')] });

    expect(result!.map((e) => e.key)).toEqual(['key-e2', 'key-e1']);
    expect(result![0].changeId).toBe(createHash('sha256').update('key-e2_redirect_r1').digest('hex'));
  });

  it('serves each kind only to connections that include it', () => {
    const sources = { visual: [changeset('c1', 'e1')], redirects: [redirect('r1', 'e2')] };
    const experiments = [experiment('e1'), experiment('e2')];

    expect(build(experiments, sources, { includeRedirectExperiments: false })!.map((e) => e.key)).toEqual(['key-e1']);
    expect(build(experiments, sources, { includeVisualExperiments: false })!.map((e) => e.key)).toEqual(['key-e2']);
  });

  it('leaves out drafts unless asked, archived experiments, and experiments of other projects', () => {
    const experiments = [experiment('draft', { status: 'draft' }), experiment('archived', { archived: true }), experiment('other', { project: 'prj_b' })];
    const visual = experiments.map((e) => changeset(`c-${e.id}`, e.id));

    expect(build(experiments, { visual }, { projects: ['prj_a'] })).toEqual([]);
    expect(build(experiments, { visual }, { projects: ['prj_a'], includeDraftExperiments: true })!.map((e) => e.key)).toEqual(['key-draft']);
  });

  it('serves a stopped experiment only while it releases a variation that changes something, with force', () => {
    const released = { status: 'stopped', resultSummary: { releasedVariationId: 'v1', excludeFromPayload: false } };
    const experiments = [
      experiment('shown', released),
      experiment('nothing-to-show', released),
      experiment('excluded', { status: 'stopped', resultSummary: { releasedVariationId: 'v1', excludeFromPayload: true } }),
      experiment('redirected', released),
      experiment('no-destination', released),
    ];

    const result = build(experiments, {
      visual: [changeset('c1', 'shown'), changeset('c2', 'nothing-to-show', ''), changeset('c3', 'excluded')],
      redirects: [redirect('r1', 'redirected'), redirect('r2', 'no-destination', '')],
    });

    expect(result!.map((e) => [e.key, e.force])).toEqual([
      ['key-redirected', 1],
      ['key-shown', 1],
    ]);
  });

  it('takes targeting, coverage, weights, seed and a multi-range namespace from the latest phase', () => {
    const exp = experiment('e1', {
      phases: [
        { coverage: 1, targetingCondition: '{"old":true}' },
        {
          coverage: 0.4,
          seed: 's2',
          trafficSplit: [{ variationId: 'v0', weight: 0.3 }, { variationId: 'v1', weight: 0.7 }],
          targetingCondition: '{"country":"NL"}',
          savedGroupTargeting: [{ matchType: 'all', savedGroups: ['grp_staff'] }],
          namespace: { namespaceId: 'ns', enabled: true, ranges: [[0, 0.5]] },
        },
      ],
    });
    const refs: PayloadReferences = {
      ...noRefs,
      savedGroups: new Map([['grp_staff', { id: 'grp_staff', type: 'list', attributeKey: 'id', values: ['alice'] }]]),
    };

    const [served] = build([exp], { visual: [changeset('c1', 'e1')] }, {}, refs)!;

    expect(served).toMatchObject({
      phase: '1',
      coverage: 0.4,
      seed: 's2',
      weights: [0.3, 0.7],
      condition: { $and: [{ country: 'NL' }, { id: { $in: ['alice'] } }] },
      filters: [{ attribute: 'id', seed: 'ns', hashVersion: 2, ranges: [[0, 0.5]] }],
    });
  });

  it('leaves out an experiment whose phase needs a saved group that is gone', () => {
    const exp = experiment('e1', { phases: [{ savedGroupTargeting: [{ matchType: 'all', savedGroups: ['grp_gone'] }] }] });

    expect(build([exp], { visual: [changeset('c1', 'e1')] })).toEqual([]);
  });

  it('names experiments and variations only with includeExperimentNames, and adds the metadata asked for', () => {
    const exp = experiment('e1', { tags: ['checkout'] });
    const sources = { visual: [changeset('c1', 'e1')] };

    const [plain] = build([exp], sources)!;
    const [named] = build([exp], sources, { includeExperimentNames: true, metadata: { includeTagsInMetadata: true } })!;

    expect(plain.name).toBeUndefined();
    expect(plain.meta).toEqual([{ key: '0' }, { key: '1' }]);
    expect(plain.metadata).toBeUndefined();
    expect(named.name).toBe('Name e1');
    expect(named.meta).toEqual([{ key: '0', name: 'Control' }, { key: '1', name: 'Treatment' }]);
    expect(named.metadata).toEqual({ tags: ['checkout'] });
  });

  it('hashes values compared with a secure attribute when the connection hashes them', () => {
    const exp = experiment('e1', { phases: [{ targetingCondition: '{"email":"a@example.com"}' }] });
    const refs: PayloadReferences = { ...noRefs, attributes: new Map([['email', 'secureString']]) };

    const [served] = build([exp], { visual: [changeset('c1', 'e1')] }, { secureAttributeSalt: 'salt' }, refs)!;

    expect(served.condition).toEqual({ email: createHash('sha256').update('salta@example.com').digest('hex') });
  });

  it('gives a variation without a destination an empty redirect, and one without a visual change no change', () => {
    const exp = experiment('e1', {
      variations: [
        { variationId: 'v0', key: '0' },
        { variationId: 'v1', key: '1' },
        { variationId: 'v2', key: '2' },
      ],
    });

    const result = build([exp], { visual: [changeset('c1', 'e1')], redirects: [redirect('r1', 'e1')] })!;

    expect(result[0].variations[2]).toEqual({ urlRedirect: '' });
    expect(result[1].variations[2]).toEqual({ css: '', js: '', domMutations: [] });
  });
});
