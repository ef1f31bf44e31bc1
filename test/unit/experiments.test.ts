import fc from 'fast-check';
import { InvalidInputError } from '../../shared/errors';
import type { Experiment, PostExperimentBody } from '../../shared/contracts/experiments';
import {
  buildPhase,
  buildVariations,
  enhancedStatus,
  newExperiment,
  resplit,
  templateDefaults,
  updatedExperiment,
} from '../../shared/domain/experiments';
import { assertAnalysable, newSnapshot } from '../../shared/domain/snapshots';
import type { AnalysisInputs } from '../../shared/analysis/inputs';

const NOW = '2024-06-01T00:00:00.000Z';
const body = (fields: Partial<PostExperimentBody> = {}): PostExperimentBody => ({
  trackingKey: 'checkout',
  name: 'Checkout',
  variations: [
    { key: 'a', name: 'A' },
    { key: 'b', name: 'B' },
  ],
  ...fields,
});
const experiment = (fields: Partial<PostExperimentBody> = {}): Experiment => ({
  ...newExperiment(body(fields), { owner: '' }, NOW),
  dateCreated: NOW,
  dateUpdated: NOW,
});
const variationsOf = (n: number) => buildVariations(Array.from({ length: n }, (_, i) => ({ key: `k${i}`, name: `V${i}` })));
const sum = (numbers: number[]) => numbers.reduce((a, b) => a + b, 0);

describe('buildVariations', () => {
  it('keeps a given id, else the id of the current variation with the same key, else makes one', () => {
    const current = buildVariations([
      { id: 'var_a', key: 'a', name: 'A' },
      { id: 'var_b', key: 'b', name: 'B' },
    ]);

    const next = buildVariations(
      [
        { key: 'b', name: 'B again' },
        { id: 'mine', key: 'c', name: 'C' },
        { key: 'd', name: 'D' },
      ],
      current,
    );

    expect(next.map((v) => v.variationId)).toEqual(['var_b', 'mine', expect.stringMatching(/^var_/)]);
  });

  it('refuses two variations with one id', () => {
    expect(() =>
      buildVariations([
        { id: 'same', key: 'a', name: 'A' },
        { id: 'same', key: 'b', name: 'B' },
      ]),
    ).toThrow(/\[variations\.1\.id\]/);
  });
});

describe('buildPhase', () => {
  it('splits traffic equally when no weights are given, for any number of variations', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 20 }), (n) => {
        const phase = buildPhase({ name: 'P', dateStarted: NOW }, variationsOf(n), 'key', 'phases.0');

        expect(Math.abs(sum(phase.trafficSplit.map((s) => s.weight)) - 1)).toBeLessThan(1e-9);
        expect(new Set(phase.trafficSplit.map((s) => s.weight)).size).toBe(1);
      }),
    );
  });

  it('accepts weights rounded by the client', () => {
    const phase = buildPhase({ name: 'P', dateStarted: NOW, variationWeights: [0.3333, 0.3333, 0.3334] }, variationsOf(3), 'k', 'phases.0');

    expect(phase.trafficSplit.map((s) => s.weight)).toEqual([0.3333, 0.3333, 0.3334]);
  });

  it('seeds with the tracking key unless a seed is given', () => {
    expect(buildPhase({ name: 'P', dateStarted: NOW }, variationsOf(2), 'tracking', 'p').seed).toBe('tracking');
    expect(buildPhase({ name: 'P', dateStarted: NOW, seed: 'own' }, variationsOf(2), 'tracking', 'p').seed).toBe('own');
  });

  it('names the phase field in its errors', () => {
    expect(() => buildPhase({ name: 'P', dateStarted: NOW, variationWeights: [1] }, variationsOf(2), 'k', 'phases.3')).toThrow(
      /^Request body: \[phases\.3\.variationWeights\]/,
    );
  });
});

describe('resplit', () => {
  it('keeps each weight at its position when the number of variations is unchanged', () => {
    const phase = buildPhase({ name: 'P', dateStarted: NOW, variationWeights: [0.1, 0.9] }, variationsOf(2), 'k', 'p');
    const renamed = buildVariations([
      { key: 'x', name: 'X' },
      { key: 'y', name: 'Y' },
    ]);

    const next = resplit(phase, renamed);

    expect(next.trafficSplit).toEqual([
      { variationId: renamed[0].variationId, weight: 0.1 },
      { variationId: renamed[1].variationId, weight: 0.9 },
    ]);
  });

  it('splits equally when variations were added or removed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10 }), fc.integer({ min: 2, max: 10 }), (before, after) => {
        fc.pre(before !== after);
        const phase = buildPhase({ name: 'P', dateStarted: NOW }, variationsOf(before), 'k', 'p');

        const next = resplit(phase, variationsOf(after));

        expect(next.trafficSplit).toHaveLength(after);
        expect(Math.abs(sum(next.trafficSplit.map((s) => s.weight)) - 1)).toBeLessThan(1e-9);
      }),
    );
  });
});

describe('updatedExperiment', () => {
  it('leaves everything but dates as it was when the body is empty', () => {
    const current = experiment({ hypothesis: 'h', tags: ['t'], status: 'running', datasourceId: 'ds' });

    expect(updatedExperiment(current, {}, undefined, NOW)).toEqual(current);
  });

  it('drops the bandit schedule when a bandit becomes a standard experiment', () => {
    const bandit = experiment({ type: 'multi-armed-bandit' });

    const next = updatedExperiment(bandit, { type: 'standard' }, undefined, NOW);

    expect(next.banditScheduleValue).toBeUndefined();
    expect(next.type).toBe('standard');
  });

  it('keeps the analysis settings it is not given', () => {
    const current = experiment({ datasourceId: 'ds', statsEngine: 'frequentist', metricOverrides: [{ id: 'm', delayHours: 2 }] });

    const next = updatedExperiment(current, { queryFilter: 'x > 1' }, undefined, NOW);

    expect(next.settings).toEqual({ ...current.settings, queryFilter: 'x > 1' });
  });

  it('refuses a winner once the winning variation was removed', () => {
    const current = updatedExperiment(experiment(), { results: 'won', winner: 1 }, undefined, NOW);

    expect(() => updatedExperiment(current, { variations: [{ key: 'a', name: 'A' }, { key: 'z', name: 'Z' }] }, undefined, NOW)).toThrow(
      /\[winner\]/,
    );
  });
});

describe('enhancedStatus', () => {
  it.each([
    [{ status: 'draft' as const }, 'Draft'],
    [{ status: 'draft' as const, statusUpdateSchedule: { startAt: '2999-01-01T00:00:00Z' } }, 'Scheduled'],
    [{ status: 'running' as const }, 'Running'],
    [{ status: 'stopped' as const }, 'Stopped'],
    [{ status: 'stopped' as const, archived: true }, 'Archived'],
  ])('summarises %p as %s', (fields, status) => {
    expect(enhancedStatus(experiment(fields))).toEqual({ status });
  });
});

describe('templateDefaults', () => {
  it("turns the template's targeting into a first phase starting now", () => {
    const defaults = templateDefaults(
      {
        id: 'tmplt__1',
        owner: '',
        dateCreated: NOW,
        dateUpdated: NOW,
        templateMetadata: { name: 'T' },
        type: 'standard',
        datasource: 'ds',
        exposureQueryId: 'q',
        statsEngine: 'bayesian',
        targeting: { coverage: 0.3, condition: '{"a":1}', savedGroups: [{ match: 'none', ids: ['grp_1'] }] },
        skipPartialData: false,
      },
      NOW,
    );

    expect(defaults).toMatchObject({
      datasourceId: 'ds',
      assignmentQueryId: 'q',
      inProgressConversions: 'loose',
      phases: [{ name: 'Main', dateStarted: NOW, coverage: 0.3, condition: '{"a":1}', savedGroupTargeting: [{ matchType: 'none', savedGroups: ['grp_1'] }] }],
    });
  });
});

describe('snapshots', () => {
  const analysable = () => experiment({ status: 'running', datasourceId: 'ds' });

  it.each([
    ['a draft', { status: 'draft' as const, datasourceId: 'ds' }, /draft/],
    ['no phases', { status: 'running' as const, datasourceId: 'ds', phases: [] }, /no phases/],
    ['no datasource', { status: 'running' as const }, /no datasource/],
  ])('refuses to analyse %s', (_case, fields, message) => {
    expect(() => assertAnalysable(experiment(fields), undefined)).toThrow(message);
    expect(() => assertAnalysable(experiment(fields), undefined)).toThrow(InvalidInputError);
  });

  it('starts a snapshot running, with the inputs it froze, for the latest phase', () => {
    const inputs = { experimentId: 'exp_1' } as AnalysisInputs;

    const snapshot = newSnapshot(analysable(), { triggeredBy: 'schedule' }, { keyId: 'key_1' }, inputs);

    expect(snapshot).toMatchObject({ status: 'running', inputs, triggeredBy: 'schedule', triggeredByKeyId: 'key_1', phase: 0 });
  });
});
