import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from './repository-reads';

/** The folders whose code runs in tests, benchmarks, scripts or the deployed service. */
export const scannedFolders = ['test', 'bench', 'scripts', 'infra', 'functions', 'shared'];

const sourceFile = /\.(?:ts|js|mjs|cjs)$/;

/** Every source file under `folder` (absolute), without node_modules. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(file);
    return sourceFile.test(entry.name) ? [file] : [];
  });
}

const isInside = (file: string) => file === repositoryRoot || file.startsWith(repositoryRoot + path.sep);
const literalArguments = String.raw`((?:\s*,\s*(?:'[^'\n]*'|"[^"\n]*"))*)`;
const literalsOf = (list: string) => [...list.matchAll(/'([^'\n]*)'|"([^"\n]*)"/g)].map((match) => match[1] ?? match[2]!);

/**
 * The path expressions of one source file (at `file`, absolute) that name something outside the repository:
 * - a relative string literal (starting with ./ or ../), against the file's folder when it is a module specifier
 *   (from, import(, require(, jest.mock() and against the repository root (where npm runs) otherwise, except in
 *   DuckDB SQL (read_csv( and the like);
 * - join or resolve of __dirname, process.cwd(), or a constant built from them, and string literals;
 * - an absolute literal into a home or work folder (/work, /home, ~ and the like), which only one machine has.
 */
export function outsidePaths(file: string, source: string): string[] {
  const folder = path.dirname(file);
  const found: string[] = [];
  const line = (index: number) => source.slice(0, index).split('\n').length;
  const report = (index: number, expression: string, target: string) =>
    found.push(`${path.relative(repositoryRoot, file)}:${line(index)} ${expression} -> ${target}`);

  // Constants such as `const root = join(__dirname, '..', '..')`, to follow `join(root, …)`.
  const bases = new Map<string, string>([['__dirname', folder], ['process.cwd()', repositoryRoot]]);
  for (const match of source.matchAll(new RegExp(String.raw`(?:const|let)\s+([\w$]+)\s*=\s*(?:path\.)?(?:join|resolve)\(\s*__dirname${literalArguments}\s*\)`, 'g'))) {
    bases.set(match[1]!, path.resolve(folder, ...literalsOf(match[2]!)));
  }

  const call = new RegExp(String.raw`(?:path\.)?(?:join|resolve)\(\s*(__dirname|process\.cwd\(\)|[\w$]+)${literalArguments}`, 'g');
  for (const match of source.matchAll(call)) {
    const base = bases.get(match[1]!);
    if (base === undefined || !match[2]) continue;
    const target = path.resolve(base, ...literalsOf(match[2]));
    if (!isInside(target)) report(match.index, match[0].replace(/\s+/g, ' '), target);
  }

  for (const match of source.matchAll(/(['"`])(\.\.?\/[^'"`\n]*)\1/g)) {
    const before = source.slice(Math.max(0, match.index - 40), match.index);
    if (/(?:join|resolve)\(\s*[\w$.()]+(?:\s*,\s*(?:'[^'\n]*'|"[^"\n]*"))*\s*,\s*$/.test(before)) continue; // followed above
    // A file named in DuckDB SQL is DuckDB's to open, in its sandbox under the data source's folder, not the test's.
    if (/\bread_(?:csv|text|parquet|json)\(\s*$/.test(before)) continue;
    const specifier = /(?:\bfrom|\bimport|\bimport\(|\brequire\(|\bjest\.mock\()\s*$/.test(before);
    const target = path.resolve(specifier ? folder : repositoryRoot, match[2]!);
    if (!isInside(target)) report(match.index, match[0], target);
  }

  for (const match of source.matchAll(/(['"`])((?:~|\/work|\/home|\/Users|\/root|\/mnt|\/srv|\/opt)\/[^'"`\n]*)\1/g)) {
    report(match.index, match[0], match[2]!);
  }
  return found;
}
