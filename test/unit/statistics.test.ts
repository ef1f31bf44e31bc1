import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AnalysisSettings,
  type MetricSettings,
  type VariationRow,
  analyseMetric,
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

/** The rows of the i-th metric of a query, without its `m{i}_` prefix and without other metrics' columns. */
function rowsOfMetric(rows: VariationRow[], i: number): VariationRow[] {
  const prefix = `m${i}_`;
  return rows.map((row) => {
    const out: VariationRow = {};
    for (const [column, value] of Object.entries(row)) {
      if (column.startsWith(prefix)) out[column.slice(prefix.length)] = value;
      else if (!/^m\d+_/.test(column)) out[column] = value;
    }
    return out;
  });
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
      const rows = rowsOfMetric(query.rows, index);
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
  const rows = rowsOfMetric(input.query_results[0].rows, 0);
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

  it('reads numbers given as text, as Athena returns them', () => {
    const asText = analyseMetric([
      { variation: 'a', users: '100', main_sum: '200', main_sum_squares: '500' },
      { variation: 'b', users: '100', main_sum: '260', main_sum_squares: '800' },
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
  const rows = rowsOfMetric(input.query_results[0].rows, 1);
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
  const rows = rowsOfMetric(input.query_results[0].rows, 2);

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
