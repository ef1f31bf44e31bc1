import { fork } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** The directory DuckDB data sources read from: `ANALYSIS_DATA_DIR`, default `.data/analysis`. */
export function analysisDataDir(): string {
  return path.resolve(process.env.ANALYSIS_DATA_DIR || '.data/analysis');
}

/** A query failed in the engine; `queryId` names it, and the message is the engine's own. */
export class QueryFailedError extends Error {
  constructor(
    message: string,
    readonly queryId?: string,
  ) {
    super(message);
    this.name = 'QueryFailedError';
  }
}

export interface DuckDbRun {
  rowsByQuery: Record<string, Record<string, unknown>[]>;
  /** Peak resident memory of the engine process, in bytes. */
  peakMemoryBytes: number;
}

/**
 * Runs queries on embedded DuckDB, in order, in a child process that lives in the data directory:
 * relative paths resolve against it, and any file outside it is refused (`allowed_directories`,
 * external access otherwise disabled, configuration locked). `signal` aborts (kills) the run.
 */
export async function runDuckDbQueries(
  queries: { id: string; sql: string }[],
  options: { dataDir?: string; signal?: AbortSignal; threads?: number } = {},
): Promise<DuckDbRun> {
  const dataDir = options.dataDir ?? analysisDataDir();
  mkdirSync(dataDir, { recursive: true });
  const realDir = realpathSync(dataDir);
  const worker = fork(path.join(__dirname, 'duckdb-worker.mjs'), [], {
    cwd: realDir,
    // The worker is plain JavaScript: no TypeScript loader (tsx, jest) is needed or wanted in it.
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  worker.stderr?.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
  return new Promise<DuckDbRun>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      worker.kill('SIGKILL');
      finish(() => reject(options.signal?.reason instanceof Error ? options.signal.reason : new QueryFailedError('The query run was cancelled')));
    };
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (answer: { rowsByQuery?: DuckDbRun['rowsByQuery']; maxRssKb?: number; error?: { queryId?: string; message: string } }) =>
      finish(() =>
        answer.error
          ? reject(new QueryFailedError(answer.error.message, answer.error.queryId))
          : resolve({ rowsByQuery: answer.rowsByQuery ?? {}, peakMemoryBytes: (answer.maxRssKb ?? 0) * 1024 }),
      ),
    );
    worker.once('error', (error) => finish(() => reject(new QueryFailedError(`DuckDB could not start: ${error.message}`))));
    worker.once('exit', (code, signal) =>
      finish(() => reject(new QueryFailedError(`DuckDB stopped unexpectedly (${signal ?? `exit code ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`))),
    );
    worker.send({ dataDir: realDir, queries, threads: options.threads });
  });
}
