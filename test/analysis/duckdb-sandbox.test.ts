import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { duckDbSlots, QueryFailedError, runDuckDbQueries } from '../../shared/analysis/engines/duckdb';
import type { AnalysisInputs } from '../../shared/analysis/inputs';
import { buildSnapshotQueries } from '../../shared/analysis/sql/snapshot-queries';

const dataDir = mkdtempSync(path.join(tmpdir(), 'duckdb-sandbox-'));
const exposures = 'user_id,timestamp,experiment_id,variation_id\nu1,2024-05-01 10:00:00,exp-key,0\nu2,2024-05-01 11:00:00,exp-key,1\n';
writeFileSync(path.join(dataDir, 'exposures.csv'), exposures);
writeFileSync(path.join(dataDir, 'events.csv'), 'user_id,timestamp,amount\nu1,2024-05-01 12:00:00,3\n');

const inputs = (fields: { factSql?: string; assignmentSql?: string } = {}): AnalysisInputs => ({
  engine: 'duckdb',
  datasourceId: 'ds_1',
  experimentId: 'exp_1',
  trackingKey: 'exp-key',
  phase: 0,
  start: '2024-05-01T00:00:00.000Z',
  end: '2024-05-10T00:00:00.000Z',
  variations: [
    { variationId: 'var_a', key: '0', name: 'A', weight: 0.5 },
    { variationId: 'var_b', key: '1', name: 'B', weight: 0.5 },
  ],
  assignmentQuery: {
    id: 'users',
    name: 'Users',
    sql: fields.assignmentSql ?? "SELECT * FROM read_csv('exposures.csv')",
    identifierType: 'user_id',
    dimensionColumns: [],
  },
  dimension: null,
  attributionModel: 'firstExposure',
  inProgressConversions: 'include',
  queryFilter: '',
  statsEngine: 'frequentist',
  sequentialTestingEnabled: false,
  sequentialTestingTuningParameter: 5000,
  settings: {},
  factTables: [{ id: 'ftb_events', name: 'Events', sql: fields.factSql ?? "SELECT * FROM read_csv('events.csv')", userIdTypes: ['user_id'] }],
  metrics: [
    {
      id: 'revenue',
      name: 'revenue',
      type: 'mean',
      inverse: false,
      numerator: { factTableId: 'ftb_events', column: 'amount', aggregation: 'sum', where: [] },
      capping: { type: 'none', value: 0, ignoreZeros: false },
      window: { type: 'none', delayHours: 0, windowHours: 0 },
      regressionAdjustment: { enabled: false, days: 0 },
      prior: { proper: false, mean: 0, stddev: 0.3 },
    },
  ],
});

/**
 * SQL that closes the builder's subquery (aliased `alias`), ends the statement, runs `statement`, then
 * opens a statement that absorbs the rest of the builder's text: the whole query still parses.
 */
const smuggling = (alias: 'e' | 'f', statement: string) =>
  `SELECT 1 AS user_id, NULL AS timestamp) ${alias}) SELECT 1; ${statement}; WITH __x AS (SELECT 1), __y AS (SELECT * FROM (SELECT 1 AS user_id, NULL AS timestamp`;

const attacks = [
  ['COPY ... TO over a data file', "COPY (SELECT 'owned-by-analyst' AS user_id) TO 'exposures.csv'"],
  ['ATTACH of a new database file', "ATTACH 'owned.duckdb' AS owned"],
  ['EXPORT DATABASE', "EXPORT DATABASE 'exported'"],
  ['INSTALL', 'INSTALL httpfs'],
  ['LOAD', 'LOAD httpfs'],
  ['SET', 'SET memory_limit=\'100GB\''],
  ['PRAGMA', 'PRAGMA threads=64'],
] as const;

const listing = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((entry) => !entry.startsWith('.duckdb-tmp'))
    .sort();

const run = (sql: string, options: Parameters<typeof runDuckDbQueries>[1] = {}) =>
  runDuckDbQueries([{ id: 'q', sql }], { dataDir, ...options }).then(
    () => undefined,
    (error: unknown) => error as QueryFailedError,
  );

describe('the DuckDB sandbox', () => {
  let filesBefore: string[];
  beforeAll(async () => {
    // A run that succeeds first: the builder's query is sound, so a refusal below is the sandbox's doing.
    const [query] = buildSnapshotQueries(inputs());
    const { rowsByQuery } = await runDuckDbQueries([query], { dataDir });
    expect(rowsByQuery[query.id]).toHaveLength(2);
    filesBefore = listing(dataDir);
  });

  describe.each([
    ['fact-table SQL', (statement: string) => inputs({ factSql: smuggling('f', statement) })],
    ['assignment SQL', (statement: string) => inputs({ assignmentSql: smuggling('e', statement) })],
  ])('through %s', (_where, attacked) => {
    it.each(attacks)('refuses %s appended after the query, and no file changes', async (_attack, statement) => {
      const [query] = buildSnapshotQueries(attacked(statement));

      const error = await run(query.sql);

      expect(error).toBeInstanceOf(QueryFailedError);
      expect(error?.message).toMatch(/must be exactly one SQL statement, and this one has 3/);
      expect(readFileSync(path.join(dataDir, 'exposures.csv'), 'utf8')).toBe(exposures);
      expect(listing(dataDir)).toEqual(filesBefore);
    });
  });

  it.each(attacks)('refuses %s as a query of its own, and no file changes', async (_attack, statement) => {
    const error = await run(statement);

    expect(error?.message).toMatch(/Only a SELECT may run/);
    expect(readFileSync(path.join(dataDir, 'exposures.csv'), 'utf8')).toBe(exposures);
    expect(listing(dataDir)).toEqual(filesBefore);
  });

  it('stops a query that runs past the query timeout, naming the limit', async () => {
    const error = await run('SELECT COUNT(*) FROM range(1000000) a CROSS JOIN range(1000000) b', { queryTimeoutMs: 300 });

    expect(error?.message).toBe('The query was stopped after 0.3 s (ANALYSIS_QUERY_TIMEOUT_MS)');
  });

  it('sets the memory limit, the threads and the spill directory and its size', async () => {
    const { rowsByQuery } = await runDuckDbQueries(
      [
        {
          id: 'q',
          sql: "SELECT current_setting('memory_limit') AS memory, current_setting('threads') AS threads, current_setting('max_temp_directory_size') AS spill, current_setting('temp_directory') AS dir",
        },
      ],
      { dataDir, memoryLimit: '256MB', threads: 1, maxTempSize: '512MB' },
    );

    expect(rowsByQuery.q).toEqual([{ memory: '244.1 MiB', threads: 1, spill: '488.2 MiB', dir: expect.stringMatching(/\.duckdb-tmp\/run-/) }]);
    expect(path.dirname(path.dirname(rowsByQuery.q[0].dir as string))).toBe(path.resolve(dataDir));
  });

  it('spills into its own folder under the configured spill directory, removed after the run', async () => {
    const { rowsByQuery } = await runDuckDbQueries([{ id: 'q', sql: "SELECT current_setting('temp_directory') AS dir" }], { dataDir, tempDirectory: 'spill' });

    const dir = rowsByQuery.q[0].dir as string;
    expect(path.dirname(dir)).toBe(path.join(realpathSync(dataDir), 'spill'));
    expect(path.basename(dir)).toMatch(/^run-/);
    expect(existsSync(dir)).toBe(false);
  });

  describe('with at most one run at a time', () => {
    beforeAll(() => (process.env.ANALYSIS_MAX_CONCURRENT_RUNS = '1'));
    afterAll(() => delete process.env.ANALYSIS_MAX_CONCURRENT_RUNS);

    it('makes a second run wait for the first to end, then runs it', async () => {
      const first = new AbortController();
      const slow = run('SELECT COUNT(*) FROM range(1000000) a CROSS JOIN range(1000000) b', { signal: first.signal });
      const quick = runDuckDbQueries([{ id: 'q', sql: 'SELECT 42 AS answer' }], { dataDir });

      expect(duckDbSlots()).toEqual({ running: 1, waiting: 1 });
      first.abort(new QueryFailedError('stopped by the test'));
      expect((await slow)?.message).toBe('stopped by the test');
      expect((await quick).rowsByQuery.q).toEqual([{ answer: 42 }]);
      expect(duckDbSlots()).toEqual({ running: 0, waiting: 0 });
    });

    it('takes a waiting run out of the queue when it is aborted', async () => {
      const first = new AbortController();
      const second = new AbortController();
      const slow = run('SELECT COUNT(*) FROM range(1000000) a CROSS JOIN range(1000000) b', { signal: first.signal });
      const queued = run('SELECT 1', { signal: second.signal });

      second.abort(new QueryFailedError('timed out while waiting'));
      expect((await queued)?.message).toBe('timed out while waiting');
      expect(duckDbSlots()).toEqual({ running: 1, waiting: 0 });
      first.abort(new QueryFailedError('stopped by the test'));
      await slow;
      expect(duckDbSlots()).toEqual({ running: 0, waiting: 0 });
    });
  });
});
