import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

export type Row = Record<string, string | number | boolean | null | undefined>;

const cell = (value: Row[string]) => (value === undefined || value === null ? '' : String(value));

/** Prints rows as an aligned Markdown table under a title. */
export function printTable(title: string, rows: Row[]): void {
  console.log(`\n### ${title}\n`);
  if (rows.length === 0) {
    console.log('(no rows)');
    return;
  }
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) => `| ${values.map((value, i) => value.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(columns));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(columns.map((column) => cell(row[column]))));
}

/** The machine a result was measured on, as docs/performance.md prints it. */
export function machine() {
  return { cpus: cpus().length, cpuModel: cpus()[0]?.model.trim(), memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: process.platform };
}

/** Writes a benchmark's results as JSON under bench/results/, with the date and the machine. */
export function saveResults(name: string, data: unknown): string {
  const folder = join(__dirname, 'results');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), machine: machine(), ...(data as object) }, null, 2)}\n`);
  return file;
}

/** The value at quantile `q` (0..1) of `values`. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const round = (value: number, digits = 2) => Number(value.toFixed(digits));
