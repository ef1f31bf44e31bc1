import fc from 'fast-check';
import { Z_975 } from '../../shared/analysis/statistics/quantile-grid';
import { normalQuantile as standardNormalQuantile } from '../../shared/analysis/statistics/distributions';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AnalysisSettings,
  type MetricSettings,
  type VariationRow,
  analyseMetric,
  metricRows,
  srmPValue,
  toApiAnalysis,
} from '../../shared/analysis/statistics';
import {
  sequentialHalfwidthOneSided,
  sequentialOneSidedPValue,
  sequentialRho,
} from '../../shared/analysis/statistics/frequentist';

// Golden cases computed by GrowthBook's own engine (gbstats); copied from the shared fixtures with their README.
const FIXTURES = join(__dirname, '../fixtures/gbstats');
const TOLERANCE = 1e-6;

interface Fixture {
  id: string;
  description: string;
  input: {
    data: {
      data: {
        metrics: Record<string, MetricSettings>;
        analyses: AnalysisSettings[];
        query_results: { metrics: string[]; rows: VariationRow[] }[];
      };
    }[];
  };
  expected: { metric: string; analyses: unknown[] }[];
}

/** Python's json writes ±Infinity and NaN bare; JSON.parse needs them quoted, then turned back into numbers. */
function readFixture(file: string): Fixture {
  const text = readFileSync(join(FIXTURES, file), 'utf8').replace(/(-?Infinity|NaN)(?=\s*[,\]}])/g, '"$1"');
  return JSON.parse(text, (_key, value) =>
    value === 'Infinity' ? Infinity : value === '-Infinity' ? -Infinity : value === 'NaN' ? NaN : value,
  );
}

function close(expected: number, actual: number): boolean {
  if (!Number.isFinite(expected)) return Object.is(expected, actual) || (Number.isNaN(expected) && Number.isNaN(actual));
  const diff = Math.abs(expected - actual);
  return diff <= TOLERANCE || diff <= TOLERANCE * Math.abs(expected);
}

/**
 * Walks everything in `expected` and lists each place where `actual` differs: every number (to 1e-6, absolute or
 * relative), string, boolean and null, every array length, every key.
 */
function differences(expected: unknown, actual: unknown, path: string, counter: { numbers: number }): string[] {
  if (typeof expected === 'number') {
    counter.numbers++;
    return typeof actual === 'number' && close(expected, actual) ? [] : [`${path}: expected ${expected}, got ${String(actual)}`];
  }
  if (expected === null || typeof expected !== 'object') {
    return Object.is(expected, actual) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) return [`${path}: expected ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((item, i) => differences(item, actual[i], `${path}[${i}]`, counter));
  }
  if (actual === null || typeof actual !== 'object') return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
  return Object.entries(expected).flatMap(([key, value]) =>
    key in actual
      ? differences(value, (actual as Record<string, unknown>)[key], `${path}.${key}`, counter)
      : [`${path}.${key}: missing`],
  );
}

const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort();

describe('statistics against gbstats golden fixtures', () => {
  it('finds the six golden cases', () => {
    expect(files).toHaveLength(6);
  });

  describe.each(files)('%s', (file) => {
    const fixture = readFixture(file);
    const input = fixture.input.data[0].data;
    const query = input.query_results[0];

    it.each(fixture.expected.map((e) => [e.metric, e] as const))('matches every number of metric %s', (_id, expectedMetric) => {
      // Arrange
      const index = query.metrics.indexOf(expectedMetric.metric);
      const metric = input.metrics[expectedMetric.metric];
      const rows = metricRows(query.rows, index);
      const counter = { numbers: 0 };

      // Act
      const actual = input.analyses.map((analysis) => analyseMetric(rows, metric, analysis));

      // Assert
      expect(index).toBeGreaterThanOrEqual(0);
      expect(differences(expectedMetric.analyses, actual, expectedMetric.metric, counter)).toEqual([]);
      expect(counter.numbers).toBeGreaterThan(20);
    });
  });
});

describe('the fixture comparison', () => {
  const fixture = readFixture('two-variations-all-engines.json');
  const input = fixture.input.data[0].data;
  const rows = metricRows(input.query_results[0].rows, 0);
  const expected = fixture.expected[0].analyses[0];

  it('reports a number that is off by more than the tolerance', () => {
    const actual = analyseMetric(rows, input.metrics.m_conv, input.analyses[0]);
    const variation = actual.dimensions[0].variations[1] as { ci: [number, number] };
    variation.ci[1] += 1e-4;

    expect(differences(expected, actual, 'm_conv', { numbers: 0 })).toEqual([
      expect.stringContaining('m_conv.dimensions[0].variations[1].ci[1]'),
    ]);
  });

  it('reports a missing field and a different error message', () => {
    const actual = analyseMetric(rows, input.metrics.m_conv, input.analyses[0]);
    const variation = actual.dimensions[0].variations[1] as unknown as Record<string, unknown>;
    delete variation.pValue;
    variation.errorMessage = 'ZERO_NEGATIVE_VARIANCE';

    expect(differences(expected, actual, 'm_conv', { numbers: 0 })).toEqual([
      expect.stringContaining('.errorMessage'),
      expect.stringContaining('.pValue: missing'),
    ]);
  });
});

describe('metricRows', () => {
  it('keeps one metric\'s columns without their prefix and the shared columns as they are', () => {
    const rows = [{ variation: '1', dimension: 'All', users: 10, m1_main_sum: 4, m10_main_sum: 99, m0_main_sum: 7 }];

    expect(metricRows(rows, 1)).toEqual([{ variation: '1', dimension: 'All', users: 10, main_sum: 4 }]);
  });
});

describe('srmPValue', () => {
  it('is 1 without users', () => {
    expect(srmPValue([0, 0], [0.5, 0.5])).toBe(1);
  });

  it('leaves variations with no weight out of the statistic but keeps their users in the total', () => {
    // Expected 518.5 users in each weighted variation; with 2 degrees of freedom the chi-square tail is exp(-x/2).
    const statistic = 2 * (18.5 ** 2 / 518.5);

    expect(srmPValue([500, 500, 37], [0.5, 0.5, 0])).toBeCloseTo(Math.exp(-statistic / 2), 10);
  });

  it('is small for a 60/40 split of a 50/50 experiment', () => {
    expect(srmPValue([600, 400], [0.5, 0.5])).toBeLessThan(1e-9);
  });
});

describe('analyseMetric on unusual rows', () => {
  const metric: MetricSettings = {
    id: 'm',
    statistic_type: 'mean',
    main_metric_type: 'count',
    inverse: false,
    prior_proper: false,
    prior_mean: 0,
    prior_stddev: 0.3,
  };
  const analysis: AnalysisSettings = {
    stats_engine: 'frequentist',
    difference_type: 'relative',
    alpha: 0.05,
    sequential_testing_enabled: false,
    sequential_tuning_parameter: 5000,
    one_sided_intervals: false,
    weights: [0.5, 0.5],
    var_ids: ['a', 'b'],
    baseline_index: 0,
  };
  const row = (variation: string, dimension: string, users: number, sum: number, squares: number): VariationRow => ({
    variation,
    dimension,
    users,
    main_sum: sum,
    main_sum_squares: squares,
  });

  it('groups rows by dimension, largest first, and reports unknown variations', () => {
    const rows = [
      row('a', 'mobile', 10, 20, 50),
      row('b', 'mobile', 12, 30, 90),
      row('a', 'desktop', 100, 200, 500),
      row('b', 'desktop', 100, 260, 800),
      row('zzz', 'desktop', 5, 1, 1),
      row('__multiple__', 'desktop', 3, 1, 1),
    ];

    const result = analyseMetric(rows, metric, analysis);

    expect(result.unknownVariations).toEqual(['zzz']);
    expect(result.dimensions.map((d) => d.dimension)).toEqual(['desktop', 'mobile']);
    expect(result.dimensions[0].variations.map((v) => v.users)).toEqual([100, 100]);
  });

  it('merges dimension values past max_dimensions into "(other)"', () => {
    const rows = [
      row('a', 'x', 50, 100, 300), row('b', 'x', 50, 110, 320),
      row('a', 'y', 30, 60, 150), row('b', 'y', 30, 70, 200),
      row('a', 'z', 10, 20, 50), row('b', 'z', 10, 25, 70),
    ];

    const result = analyseMetric(rows, metric, { ...analysis, max_dimensions: 2 });

    expect(result.dimensions.map((d) => [d.dimension, d.variations[0].users, d.variations[0].value])).toEqual([
      ['x', 50, 100],
      ['(other)', 40, 80],
    ]);
  });

  it('reads numbers given as text (Athena), bigints (DuckDB) and NULL dimensions', () => {
    const asText = analyseMetric([
      { variation: 'a', dimension: null, users: '100', main_sum: '200', main_sum_squares: '500' },
      { variation: 'b', dimension: null, users: 100n, main_sum: 260n, main_sum_squares: 800n },
    ], metric, analysis);
    const asNumbers = analyseMetric([row('a', '', 100, 200, 500), row('b', '', 100, 260, 800)], metric, analysis);

    expect(asText).toEqual(asNumbers);
    expect(asText.dimensions[0].dimension).toBe('All');
  });

  it('places the baseline at baseline_index', () => {
    const rows = [row('a', '', 100, 200, 500), row('b', '', 100, 260, 800)];

    const result = analyseMetric(rows, metric, { ...analysis, baseline_index: 1 });

    expect(result.dimensions[0].variations[1]).not.toHaveProperty('expected');
    expect(result.dimensions[0].variations[0]).toHaveProperty('pValue');
  });

  it('refuses a baseline index outside the variations', () => {
    expect(() => analyseMetric([], metric, { ...analysis, baseline_index: 2 })).toThrow(/baseline_index/);
  });

  it('refuses a ratio metric without a denominator type', () => {
    expect(() => analyseMetric([], { ...metric, statistic_type: 'ratio' }, analysis)).toThrow(/denominator_metric_type/);
  });

  it('refuses a one-sided sequential test with alpha of 0.5 or more through its p-value message', () => {
    const rows = [row('a', '', 100, 200, 500), row('b', '', 100, 260, 800)];

    const result = analyseMetric(rows, metric, {
      ...analysis,
      alpha: 0.5,
      one_sided_intervals: true,
      sequential_testing_enabled: true,
    });

    expect(result.dimensions[0].variations[1]).toMatchObject({
      pValueErrorMessage: 'ALPHA_GREATER_THAN_0.5_FOR_SEQUENTIAL_ONE_SIDED_TEST',
      errorMessage: null,
    });
  });
});

describe('sequential one-sided tests', () => {
  const fixture = readFixture('one-sided-intervals.json');
  const input = fixture.input.data[0].data;
  const rows = metricRows(input.query_results[0].rows, 1);
  const metric = input.metrics.m_rev;

  it('give the alpha at which the one-sided bound reaches zero as p-value', () => {
    const [s2, n, rho, estimate] = [4.2, 3000, sequentialRho(0.1, 5000), -0.12];

    const p = sequentialOneSidedPValue(estimate, s2, n, rho, true);

    expect(p).toBeGreaterThan(1e-5);
    expect(p).toBeLessThan(0.4999);
    expect(sequentialHalfwidthOneSided(s2, n, rho, p)).toBeCloseTo(-estimate, 10);
  });

  it('give 0.4999 when the effect is on the side the test does not look for', () => {
    expect(sequentialOneSidedPValue(0.12, 4.2, 3000, sequentialRho(0.1, 5000), true)).toBe(0.4999);
  });

  it('are wider than the fixed-horizon one-sided interval', () => {
    const fixed = analyseMetric(rows, metric, input.analyses[0]).dimensions[0].variations[1] as { ci: number[] };
    const sequential = analyseMetric(rows, metric, { ...input.analyses[0], sequential_testing_enabled: true })
      .dimensions[0].variations[1] as { ci: number[] };

    expect(sequential.ci[0]).toBe(-Infinity);
    expect(sequential.ci[1]).toBeGreaterThan(fixed.ci[1]);
  });
});

describe('toApiAnalysis', () => {
  const fixture = readFixture('one-sided-intervals.json');
  const input = fixture.input.data[0].data;
  const rows = metricRows(input.query_results[0].rows, 2);

  it('maps a ratio variation, turning the open end of a one-sided interval into 0', () => {
    const result = analyseMetric(rows, input.metrics.m_rps, input.analyses[0]);
    const variation = result.dimensions[0].variations[1] as { expected: number; ci: number[]; pValue: number; denominator: number };

    expect(toApiAnalysis(variation as never, 'frequentist')).toMatchObject({
      engine: 'frequentist',
      denominator: variation.denominator,
      percentChange: variation.expected,
      ciLow: 0,
      ciHigh: variation.ci[1],
      pValue: variation.pValue,
    });
  });
});

describe('statistical properties', () => {
  const metric: MetricSettings = {
    id: 'm',
    statistic_type: 'mean',
    main_metric_type: 'count',
    inverse: false,
    prior_proper: false,
    prior_mean: 0,
    prior_stddev: 0.3,
  };
  const analysis: AnalysisSettings = {
    stats_engine: 'frequentist',
    difference_type: 'relative',
    alpha: 0.05,
    sequential_testing_enabled: false,
    sequential_tuning_parameter: 5000,
    one_sided_intervals: false,
    weights: [0.5, 0.5],
    var_ids: ['a', 'b'],
    baseline_index: 0,
  };
  // A variation from its size, mean and standard deviation, as the SQL step would sum it.
  const variation = fc
    .record({
      users: fc.integer({ min: 5, max: 50_000 }),
      mean: fc.double({ min: 0.5, max: 50, noNaN: true }),
      sd: fc.double({ min: 0.1, max: 30, noNaN: true }),
    })
    .map(({ users, mean, sd }) => ({ users, main_sum: users * mean, main_sum_squares: (users - 1) * sd ** 2 + users * mean ** 2 }));
  const settings = fc.record({
    difference_type: fc.constantFrom('relative' as const, 'absolute' as const),
    sequential_testing_enabled: fc.boolean(),
    alpha: fc.constantFrom(0.01, 0.05, 0.1, 0.2),
  });

  it('reject at alpha exactly when the two-sided interval leaves out zero', () => {
    fc.assert(
      fc.property(variation, variation, settings, (a, b, s) => {
        const rows = [{ variation: 'a', ...a }, { variation: 'b', ...b }];
        const result = analyseMetric(rows, metric, { ...analysis, ...s }).dimensions[0].variations[1] as {
          expected: number;
          ci: number[];
          pValue: number;
        };
        expect(result.ci[0]).toBeLessThanOrEqual(result.expected);
        expect(result.ci[1]).toBeGreaterThanOrEqual(result.expected);
        expect(result.pValue).toBeGreaterThanOrEqual(0);
        expect(result.pValue).toBeLessThanOrEqual(1);
        // Away from the boundary, where rounding could tip either side.
        if (Math.abs(result.pValue - s.alpha) > 1e-9) {
          expect(result.pValue < s.alpha).toBe(result.ci[0] > 0 || result.ci[1] < 0);
        }
      }),
    );
  });

  it('give an inverse metric the complementary chance to win and swapped risks', () => {
    fc.assert(
      fc.property(variation, variation, fc.boolean(), (a, b, proper) => {
        const rows = [{ variation: 'a', ...a }, { variation: 'b', ...b }];
        const bayesian = { ...analysis, stats_engine: 'bayesian' as const };
        const m = { ...metric, prior_proper: proper };
        type Outcome = { chanceToWin: number; risk: number[]; expected: number };
        const up = analyseMetric(rows, m, bayesian).dimensions[0].variations[1] as Outcome;
        const down = analyseMetric(rows, { ...m, inverse: true }, bayesian).dimensions[0].variations[1] as Outcome;
        expect(up.chanceToWin + down.chanceToWin).toBeCloseTo(1, 12);
        expect(down.risk).toEqual([up.risk[1], up.risk[0]]);
        expect(down.expected).toBe(up.expected);
        // Risk difference is the posterior mean: E[max(X,0)] - E[max(-X,0)] = E[X].
        expect(up.risk[0] - up.risk[1]).toBeCloseTo(up.expected, 9);
      }),
    );
  });
});

describe('uncapped supplement', () => {
  it('analyses the *_uncapped columns in place of the capped ones', () => {
    const metric: MetricSettings = {
      id: 'm', statistic_type: 'mean', main_metric_type: 'count', inverse: false,
      prior_proper: false, prior_mean: 0, prior_stddev: 0.3, compute_uncapped_metric: true,
    };
    const analysis: AnalysisSettings = {
      stats_engine: 'frequentist', difference_type: 'relative', alpha: 0.05, sequential_testing_enabled: false,
      sequential_tuning_parameter: 5000, one_sided_intervals: false, weights: [0.5, 0.5], var_ids: ['a', 'b'], baseline_index: 0,
    };
    const capped = [
      { variation: 'a', users: 100, main_sum: 200, main_sum_squares: 500, main_sum_uncapped: 260, main_sum_squares_uncapped: 2500 },
      { variation: 'b', users: 100, main_sum: 230, main_sum_squares: 640, main_sum_uncapped: 400, main_sum_squares_uncapped: 9000 },
    ];
    const uncapped = capped.map((r) => ({
      variation: r.variation,
      users: r.users,
      main_sum: r.main_sum_uncapped,
      main_sum_squares: r.main_sum_squares_uncapped,
    }));

    const withSupplement = analyseMetric(capped, metric, analysis).dimensions[0].variations[1];
    const direct = analyseMetric(uncapped, { ...metric, compute_uncapped_metric: false }, analysis).dimensions[0].variations[1];

    const { supplementalResults: _ignored, ...directIndividual } = direct;
    expect(withSupplement.supplementalResults.uncapped).toEqual(directIndividual);
    expect(withSupplement.value).toBe(230);
  });
});

describe('degenerate input', () => {
  // Small, empty or constant variations of every statistic type, under every engine and setting.
  const columns = fc.record({
    users: fc.integer({ min: 0, max: 30 }),
    main_sum: fc.integer({ min: 0, max: 30 }),
    main_sum_squares: fc.integer({ min: 0, max: 900 }),
    denominator_sum: fc.integer({ min: 0, max: 30 }),
    denominator_sum_squares: fc.integer({ min: 0, max: 900 }),
    main_denominator_sum_product: fc.integer({ min: 0, max: 900 }),
    covariate_sum: fc.integer({ min: 0, max: 30 }),
    covariate_sum_squares: fc.integer({ min: 0, max: 900 }),
    main_covariate_sum_product: fc.integer({ min: 0, max: 900 }),
    denominator_pre_sum: fc.integer({ min: 0, max: 30 }),
    denominator_pre_sum_squares: fc.integer({ min: 0, max: 900 }),
    main_post_denominator_pre_sum_product: fc.integer({ min: 0, max: 900 }),
    main_pre_denominator_post_sum_product: fc.integer({ min: 0, max: 900 }),
    main_pre_denominator_pre_sum_product: fc.integer({ min: 0, max: 900 }),
    denominator_post_denominator_pre_sum_product: fc.integer({ min: 0, max: 900 }),
  });
  const type = fc.constantFrom('binomial' as const, 'count' as const);
  const metric = fc.record({
    id: fc.constant('m'),
    statistic_type: fc.constantFrom('mean' as const, 'ratio' as const, 'mean_ra' as const, 'ratio_ra' as const),
    main_metric_type: type,
    denominator_metric_type: type,
    covariate_metric_type: type,
    inverse: fc.boolean(),
    prior_proper: fc.boolean(),
    prior_mean: fc.constantFrom(0, 0.1),
    prior_stddev: fc.constantFrom(0.1, 0.3),
  });
  const analysis = fc.record({
    stats_engine: fc.constantFrom('frequentist' as const, 'bayesian' as const),
    difference_type: fc.constantFrom('relative' as const, 'absolute' as const),
    alpha: fc.constantFrom(0.05, 0.1),
    sequential_testing_enabled: fc.boolean(),
    sequential_tuning_parameter: fc.constantFrom(100, 5000),
    one_sided_intervals: fc.boolean(),
    weights: fc.constant([0.5, 0.5]),
    var_ids: fc.constant(['a', 'b']),
    baseline_index: fc.constant(0),
  });

  function numbersOf(value: unknown, path: string): [string, number][] {
    if (typeof value === 'number') return [[path, value]];
    if (value === null || typeof value !== 'object') return [];
    return Object.entries(value).flatMap(([key, inner]) => numbersOf(inner, `${path}.${key}`));
  }

  it('never gives NaN, and infinity only at the open end of a one-sided interval', () => {
    fc.assert(
      fc.property(columns, columns, metric, analysis, (a, b, m, s) => {
        const result = analyseMetric([{ variation: 'a', ...a }, { variation: 'b', ...b }], m, s);

        for (const [path, value] of numbersOf(result, 'result')) {
          if (Number.isFinite(value)) continue;
          expect([path, value]).toEqual([expect.stringMatching(/\.ci\.[01]$/), expect.any(Number)]);
          expect(Number.isNaN(value)).toBe(false);
          expect(s.one_sided_intervals && s.stats_engine === 'frequentist').toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the quantile grid the SQL uses', () => {
  it('takes the normal 97.5% point the statistics compute', () => {
    expect(Z_975).toBeCloseTo(standardNormalQuantile(0.975, 0, 1), 12);
  });
});
