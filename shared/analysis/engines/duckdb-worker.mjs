// Runs one snapshot's queries on an embedded DuckDB, in a child process whose working directory is
// the analysis data directory: DuckDB resolves a relative path that `file_search_path` does not find
// against the process's working directory, so only a process living in the data directory keeps every
// relative path inside it. The parent kills this process on timeout, which also frees its memory.
import { DuckDBInstance } from '@duckdb/node-api';

/** A JSON-safe, numeric-where-possible copy of a DuckDB value (BIGINT and DECIMAL arrive as bigint or objects). */
function plain(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value.toDouble === 'function') return value.toDouble();
  return String(value);
}

async function run({ dataDir, queries, threads }) {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const quote = (text) => `'${text.replace(/'/g, "''")}'`;
  for (const setting of [
    `SET allowed_directories=[${quote(dataDir.endsWith('/') ? dataDir : `${dataDir}/`)}, './']`,
    `SET file_search_path=${quote(dataDir)}`,
    'SET enable_external_access=false',
    'SET autoinstall_known_extensions=false',
    'SET autoload_known_extensions=false',
    ...(threads ? [`SET threads=${Number(threads)}`] : []),
    'SET lock_configuration=true',
  ]) {
    await connection.run(setting);
  }
  const rowsByQuery = {};
  for (const query of queries) {
    try {
      const reader = await connection.runAndReadAll(query.sql);
      rowsByQuery[query.id] = reader.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));
    } catch (error) {
      return { error: { queryId: query.id, message: error instanceof Error ? error.message : String(error) } };
    }
  }
  return { rowsByQuery, maxRssKb: process.resourceUsage().maxRSS };
}

process.once('message', (request) => {
  run(request)
    .catch((error) => ({ error: { message: error instanceof Error ? error.message : String(error) } }))
    .then((answer) => process.send(answer, () => process.exit(0)));
});
