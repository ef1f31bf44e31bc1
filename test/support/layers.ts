import { join } from 'node:path';
import { PAYLOAD_LAYERS } from '../../shared/payload/layers';
import { importsOf, root } from './imports';

/** The repository's layers, bottom up: a file may import from its own level and below. */
export const LEVELS = ['contracts', 'domain', 'db', 'store', 'use-cases', 'api', 'functions'] as const;
export type Level = (typeof LEVELS)[number];

const payloadLevel = new Map<string, Level>(
  Object.entries(PAYLOAD_LAYERS).flatMap(([level, files]) => files.map((file) => [`shared/payload/${file}`, level as Level])),
);

/**
 * Where the files of shared/analysis sit, by path prefix (the first that matches): its inputs are part of the
 * snapshot contract; SQL building and statistics are pure; the query engines do I/O below the stores; what runs
 * a snapshot reads and writes stores, as a use case does.
 */
const ANALYSIS_LAYERS: Array<[prefix: string, level: Level]> = [
  ['shared/analysis/inputs', 'contracts'],
  ['shared/analysis/freeze', 'domain'],
  ['shared/analysis/sql/', 'domain'],
  ['shared/analysis/statistics/', 'domain'],
  ['shared/analysis/engines/', 'db'],
  ['shared/analysis/', 'use-cases'],
];

/**
 * The level of a repository file (repository-relative, without extension); undefined for what the layers do not
 * cover (infra, tests, bench, scripts). Files directly under shared/ (errors, ids, logger, permissions...) are
 * below everything.
 */
export function levelOf(file: string): Level | undefined {
  if (file.startsWith('shared/payload/')) return payloadLevel.get(file);
  if (file.startsWith('shared/analysis/')) return ANALYSIS_LAYERS.find(([prefix]) => file.startsWith(prefix))?.[1];
  if (file.startsWith('functions/')) return 'functions';
  if (file.startsWith('shared/types/')) return 'contracts'; // declarations of untyped packages
  const folder = /^shared\/([^/]+)\//.exec(file)?.[1];
  if (folder === undefined) return file.startsWith('shared/') ? 'contracts' : undefined;
  return LEVELS.find((level) => level === folder);
}

const rank = (level: Level) => LEVELS.indexOf(level);

/** Every import of `files` that goes to a higher level than its importer's, as "importer (level) imports target (level)". */
export function upwardImports(files: string[], level = levelOf, imports = (file: string) => importsOf(join(root, `${file}.ts`))): string[] {
  return files.flatMap((file) => {
    const from = level(file);
    if (!from) return [];
    return imports(file).flatMap((target) => {
      const to = level(target);
      return to && rank(to) > rank(from) ? [`${file} (${from}) imports ${target} (${to})`] : [];
    });
  });
}
