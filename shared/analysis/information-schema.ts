import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { analysisDataDir, QueryFailedError, runDuckDbQueries } from './engines/duckdb';

// The tables a DuckDB data source can read: the data files under the analysis data directory, with
// their columns as DuckDB's DESCRIBE reads them. Local only (DuckDB runs under `npm start`).

/** The file kinds DuckDB reads by name (`FROM 'file'`), compressed or not. */
const DATA_FILE = /\.(csv|tsv|parquet|json|jsonl|ndjson)(\.gz|\.zst)?$/i;
const MAX_FILES = 1000;

export interface DataFile {
  /** Relative to the data directory, with `/`. */
  path: string;
  created: string;
  updated: string;
}

export interface DescribedFile extends DataFile {
  columns: { columnName: string; dataType: string }[];
}

/** The data files under the data directory, in path order (hidden files and folders, the spill folder among them, left out). */
export function dataFiles(dir = analysisDataDir()): DataFile[] {
  const found: DataFile[] = [];
  const walk = (relative: string) => {
    let entries;
    try {
      entries = readdirSync(path.join(dir, relative), { withFileTypes: true });
    } catch {
      return; // no data directory yet: nothing to list
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || found.length >= MAX_FILES) continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && DATA_FILE.test(entry.name)) {
        const stat = statSync(path.join(dir, child));
        found.push({ path: child, created: stat.birthtime.toISOString(), updated: stat.mtime.toISOString() });
      }
    }
  };
  walk('');
  return found;
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * The columns of each file, from one sandboxed DuckDB run of `DESCRIBE`. A file DuckDB cannot read
 * is left out (with the reason in `unreadable`) rather than failing the whole listing.
 */
export async function describeFiles(files: DataFile[], dataDir = analysisDataDir()): Promise<{ described: DescribedFile[]; unreadable: { path: string; error: string }[] }> {
  let pending = files;
  const unreadable: { path: string; error: string }[] = [];
  for (;;) {
    const queries = pending.map((file, i) => ({ id: `f${i}`, sql: `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${literal(file.path)})` }));
    try {
      const { rowsByQuery } = await runDuckDbQueries(queries, { dataDir });
      const described = pending.map((file, i) => ({
        ...file,
        columns: (rowsByQuery[`f${i}`] ?? []).map((row) => ({ columnName: String(row.column_name), dataType: String(row.column_type) })),
      }));
      return { described, unreadable };
    } catch (error) {
      const index = error instanceof QueryFailedError && error.queryId ? Number(error.queryId.slice(1)) : -1;
      if (index < 0) throw error;
      unreadable.push({ path: pending[index]!.path, error: (error as Error).message });
      pending = pending.filter((_, i) => i !== index);
    }
  }
}
