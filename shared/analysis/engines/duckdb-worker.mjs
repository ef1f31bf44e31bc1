// Runs one snapshot's queries on an embedded DuckDB, in a child process whose working directory is
// the analysis data directory: DuckDB resolves a relative path that `file_search_path` does not find
// against the process's working directory, so only a process living in the data directory keeps every
// relative path inside it. The parent kills this process on timeout, which also frees its memory.
import { DuckDBInstance, StatementType } from '@duckdb/node-api';

/** A JSON-safe, numeric-where-possible copy of a DuckDB value (BIGINT and DECIMAL arrive as bigint or objects). */
function plain(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value.toDouble === 'function') return value.toDouble();
  return String(value);
}

/**
 * Prepares `sql` if it is exactly one SELECT. The SQL builder wraps a fact table's and an assignment
 * query's SQL in a subquery, and a `;` closing it would otherwise append statements (COPY ... TO, ATTACH,
 * EXPORT DATABASE write inside the data directory, which the directory allowance does not stop).
 * The kind is read from the parse alone first (`json_serialize_sql` accepts only SELECT), because
 * preparing some statements already acts: preparing EXPORT DATABASE creates its directory.
 */
async function prepareSelect(connection, sql) {
  // A syntax error reads as the parser's own words, as it did when the query ran directly.
  const extracted = await connection.extractStatements(sql).catch((error) => {
    throw new Error(String(error?.message ?? error).replace(/^Failed to extract statements: /, ''));
  });
  if (extracted.count !== 1) {
    throw new Error(`A query must be exactly one SQL statement, and this one has ${extracted.count}: a fact table's or assignment query's SQL may not end its statement with ";" and add others`);
  }
  const parse = await connection.prepare('SELECT json_serialize_sql($1::VARCHAR) AS tree');
  parse.bind([sql]);
  const tree = JSON.parse((await parse.runAndReadAll()).getRowObjectsJS()[0].tree);
  if (tree.error) throw new Error(`Only a SELECT may run: ${tree.error_message}`);
  const prepared = await extracted.prepare(0);
  if (prepared.statementType !== StatementType.SELECT) {
    throw new Error(`Only a SELECT may run, and this is a ${StatementType[prepared.statementType]} statement`);
  }
  return prepared;
}

async function run({ dataDir, tempDir, queries, threads, memoryLimit, maxTempSize, queryTimeoutMs }) {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const quote = (text) => `'${String(text).replace(/'/g, "''")}'`;
  for (const setting of [
    // Resources first: the temp directory can no longer be set once external access is off.
    `SET temp_directory=${quote(tempDir)}`,
    `SET max_temp_directory_size=${quote(maxTempSize)}`,
    `SET memory_limit=${quote(memoryLimit)}`,
    `SET threads=${Number(threads)}`,
    `SET allowed_directories=[${quote(dataDir.endsWith('/') ? dataDir : `${dataDir}/`)}, './']`,
    `SET file_search_path=${quote(dataDir)}`,
    'SET enable_external_access=false',
    'SET autoinstall_known_extensions=false',
    'SET autoload_known_extensions=false',
    'SET lock_configuration=true',
  ]) {
    await connection.run(setting);
  }
  const rowsByQuery = {};
  // When each query started and ended (epoch ms), for GET /queries/{id}; a failed run reports those it reached.
  const timings = {};
  for (const query of queries) {
    timings[query.id] = { startedAt: Date.now() };
    let timedOut = false;
    // The query runs on DuckDB's threads, so this timer fires meanwhile; interrupt() makes it fail.
    const timer = setTimeout(() => {
      timedOut = true;
      connection.interrupt();
    }, queryTimeoutMs);
    try {
      const prepared = await prepareSelect(connection, query.sql);
      const reader = await prepared.runAndReadAll();
      rowsByQuery[query.id] = reader.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));
    } catch (error) {
      const message = timedOut
        ? `The query was stopped after ${queryTimeoutMs / 1000} s (ANALYSIS_QUERY_TIMEOUT_MS)`
        : error instanceof Error ? error.message : String(error);
      timings[query.id].finishedAt = Date.now();
      return { error: { queryId: query.id, message }, timings };
    } finally {
      clearTimeout(timer);
    }
    timings[query.id].finishedAt = Date.now();
  }
  // getrusage's peak resident set (VmHWM on Linux) and CPU time: the whole process, DuckDB's threads included.
  const usage = process.resourceUsage();
  return { rowsByQuery, timings, maxRssKb: usage.maxRSS, cpuMicros: usage.userCPUTime + usage.systemCPUTime };
}

process.once('message', (request) => {
  run(request)
    .catch((error) => ({ error: { message: error instanceof Error ? error.message : String(error) } }))
    .then((answer) => process.send(answer, () => process.exit(0)));
});
