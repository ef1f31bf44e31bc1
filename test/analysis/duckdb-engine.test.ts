import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueryFailedError, runDuckDbQueries } from '../../shared/analysis/engines/duckdb';

const dataDir = mkdtempSync(path.join(tmpdir(), 'duckdb-engine-'));
mkdirSync(path.join(dataDir, 'events'));
writeFileSync(path.join(dataDir, 'events', 'a.csv'), 'user_id,amount\nu1,10\nu2,2.5\n');

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as QueryFailedError);

describe('the DuckDB engine', () => {
  it('reads files by paths relative to the data directory and answers plain numbers', async () => {
    const { rowsByQuery } = await runDuckDbQueries(
      [
        {
          id: 'q1',
          sql: "SELECT COUNT(*) AS n, SUM(amount)::DECIMAL(10,2) AS total, 9007199254740993::BIGINT AS big FROM read_csv('events/*.csv')",
        },
      ],
      { dataDir },
    );

    expect(rowsByQuery.q1).toEqual([{ n: 2, total: 12.5, big: 9007199254740992 }]);
  });

  it('refuses to read /etc/passwd, naming the query and the reason', async () => {
    const error = await failure(runDuckDbQueries([{ id: 'q_passwd', sql: "SELECT * FROM read_csv('/etc/passwd')" }], { dataDir }));

    expect(error).toBeInstanceOf(QueryFailedError);
    expect(error?.queryId).toBe('q_passwd');
    expect(error?.message).toMatch(/Permission Error: Cannot access file "\/etc\/passwd"/);
  });

  it.each([
    ['a parent directory', "SELECT * FROM read_csv('../x.csv')"],
    ['a file of the working directory of the server', `SELECT * FROM read_text('${path.resolve('package.json')}')`],
    ['a change of the locked configuration', 'SET enable_external_access=true'],
  ])('refuses %s', async (_case, sql) => {
    const error = await failure(runDuckDbQueries([{ id: 'q', sql }], { dataDir }));

    expect(error).toBeInstanceOf(QueryFailedError);
  });

  it('does not fall back to the server working directory for a relative path', async () => {
    const run = await runDuckDbQueries([{ id: 'q', sql: "SELECT * FROM read_text('package.json')" }], { dataDir }).catch((error: Error) => error);

    // Either DuckDB finds no such file, or it finds none to read: never the server's package.json.
    if (run instanceof Error) expect(run.message).toMatch(/package\.json/);
    else expect(run.rowsByQuery.q).toEqual([]);
  });

  it('reports an unknown column with the engine message', async () => {
    const error = await failure(runDuckDbQueries([{ id: 'q_col', sql: "SELECT nope FROM read_csv('events/a.csv')" }], { dataDir }));

    expect(error?.message).toMatch(/nope/);
    expect(error?.queryId).toBe('q_col');
  });

  it('stops a run when aborted', async () => {
    const controller = new AbortController();
    const run = failure(runDuckDbQueries([{ id: 'slow', sql: 'SELECT COUNT(*) FROM range(10000000000) a' }], { dataDir, signal: controller.signal }));
    setTimeout(() => controller.abort(new QueryFailedError('timed out')), 300);

    expect((await run)?.message).toBe('timed out');
  });
});
