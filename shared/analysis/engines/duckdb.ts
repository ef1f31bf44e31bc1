import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
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
    /** When the queries the run reached started and ended, the failed one included. */
    readonly timings: QueryTimings = {},
  ) {
    super(message);
    this.name = 'QueryFailedError';
  }
}

/** The limits of one run; each defaults to its environment variable, then to a built-in value. */
export interface DuckDbLimits {
  /** DuckDB's `threads` (`ANALYSIS_DUCKDB_THREADS`, default 2). */
  threads?: number;
  /** DuckDB's `memory_limit` (`ANALYSIS_DUCKDB_MEMORY_LIMIT`, default 1GB). */
  memoryLimit?: string;
  /** DuckDB's `max_temp_directory_size`, the spill to disk (`ANALYSIS_DUCKDB_MAX_TEMP_SIZE`, default 4GB). */
  maxTempSize?: string;
  /**
   * Where runs spill (`ANALYSIS_DUCKDB_TEMP_DIR`, default `.duckdb-tmp` in the data directory); each run
   * spills into its own folder there. A relative path is relative to the data directory.
   */
  tempDirectory?: string;
  /** How long one query may run before it is interrupted (`ANALYSIS_QUERY_TIMEOUT_MS`, default 5 minutes). */
  queryTimeoutMs?: number;
}

function limitsFrom(options: DuckDbLimits): Required<DuckDbLimits> {
  const env = process.env;
  return {
    threads: options.threads ?? (Number(env.ANALYSIS_DUCKDB_THREADS) || 2),
    memoryLimit: options.memoryLimit ?? (env.ANALYSIS_DUCKDB_MEMORY_LIMIT || '1GB'),
    maxTempSize: options.maxTempSize ?? (env.ANALYSIS_DUCKDB_MAX_TEMP_SIZE || '4GB'),
    tempDirectory: options.tempDirectory ?? (env.ANALYSIS_DUCKDB_TEMP_DIR || '.duckdb-tmp'),
    queryTimeoutMs: options.queryTimeoutMs ?? (Number(env.ANALYSIS_QUERY_TIMEOUT_MS) || 5 * 60 * 1000),
  };
}

/** How many runs may use DuckDB at once in this process (`ANALYSIS_MAX_CONCURRENT_RUNS`, default 2). */
export const maxConcurrentRuns = () => Number(process.env.ANALYSIS_MAX_CONCURRENT_RUNS) || 2;

// Runs over the cap wait here in order; each DuckDB process takes its own threads and memory limit,
// so the cap is what bounds the machine. A waiting run still counts against its snapshot's timeout.
let running = 0;
const waiting: (() => void)[] = [];

/** The runs holding a DuckDB slot and the runs waiting for one, in this process. */
export const duckDbSlots = () => ({ running, waiting: waiting.length });

function acquireSlot(signal?: AbortSignal): Promise<() => void> {
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  if (running < maxConcurrentRuns()) {
    running += 1;
    return Promise.resolve(release);
  }
  return new Promise((resolve, reject) => {
    const start = () => {
      signal?.removeEventListener('abort', onAbort);
      running += 1;
      resolve(release);
    };
    const onAbort = () => {
      waiting.splice(waiting.indexOf(start), 1);
      reject(signal?.reason instanceof Error ? signal.reason : new QueryFailedError('The query run was cancelled'));
    };
    waiting.push(start);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** When each query of a run started and ended, by query id, in epoch milliseconds. */
export type QueryTimings = Record<string, { startedAt: number; finishedAt?: number }>;

export interface DuckDbRun {
  rowsByQuery: Record<string, Record<string, unknown>[]>;
  timings: QueryTimings;
  /** Peak resident memory of the engine process, in bytes. */
  peakMemoryBytes: number;
  /** CPU time the engine process spent (user and system, all threads), in seconds. */
  cpuSeconds: number;
}

/**
 * Runs queries on embedded DuckDB, in order, in a child process that lives in the data directory:
 * relative paths resolve against it, and any file outside it is refused (`allowed_directories`,
 * external access otherwise disabled, configuration locked). Each query must be exactly one SELECT,
 * runs within the memory, thread, spill and time limits, and at most `maxConcurrentRuns()` runs use
 * DuckDB at once (the others wait their turn). `signal` aborts (kills) the run, or its wait.
 */
export async function runDuckDbQueries(
  queries: { id: string; sql: string }[],
  options: DuckDbLimits & { dataDir?: string; signal?: AbortSignal } = {},
): Promise<DuckDbRun> {
  const dataDir = options.dataDir ?? analysisDataDir();
  mkdirSync(dataDir, { recursive: true });
  const realDir = realpathSync(dataDir);
  options.signal?.throwIfAborted();
  const limits = limitsFrom(options);
  const release = await acquireSlot(options.signal);
  // One spill directory per run: two DuckDB processes sharing one would reuse each other's file names.
  const spillRoot = path.resolve(realDir, limits.tempDirectory);
  mkdirSync(spillRoot, { recursive: true });
  const tempDir = mkdtempSync(path.join(spillRoot, 'run-'));
  try {
    return await runInWorker(queries, realDir, tempDir, limits, options.signal);
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
    release();
  }
}

function runInWorker(queries: { id: string; sql: string }[], realDir: string, tempDir: string, limits: Required<DuckDbLimits>, signal?: AbortSignal): Promise<DuckDbRun> {
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
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      worker.kill('SIGKILL');
      finish(() => reject(signal?.reason instanceof Error ? signal.reason : new QueryFailedError('The query run was cancelled')));
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    type Answer = {
      rowsByQuery?: DuckDbRun['rowsByQuery'];
      timings?: QueryTimings;
      maxRssKb?: number;
      cpuMicros?: number;
      error?: { queryId?: string; message: string };
    };
    worker.once('message', (answer: Answer) =>
      finish(() =>
        answer.error
          ? reject(new QueryFailedError(answer.error.message, answer.error.queryId, answer.timings))
          : resolve({
              rowsByQuery: answer.rowsByQuery ?? {},
              timings: answer.timings ?? {},
              peakMemoryBytes: (answer.maxRssKb ?? 0) * 1024,
              cpuSeconds: (answer.cpuMicros ?? 0) / 1e6,
            }),
      ),
    );
    worker.once('error', (error) => finish(() => reject(new QueryFailedError(`DuckDB could not start: ${error.message}`))));
    worker.once('exit', (code, exitSignal) =>
      finish(() => reject(new QueryFailedError(`DuckDB stopped unexpectedly (${exitSignal ?? `exit code ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`))),
    );
    worker.send({ dataDir: realDir, tempDir, queries, ...limits });
  });
}
