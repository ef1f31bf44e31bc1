import { join, relative } from 'node:path';
import { PAYLOAD_LAYERS } from '../../shared/payload/layers';
import { importCycles, importsOf, root, tsFiles } from '../support/imports';

/** The repository's layers, bottom up: a file may import from its own level and below. */
const LEVELS = ['contracts', 'domain', 'db', 'store', 'use-cases', 'api', 'functions'] as const;
type Level = (typeof LEVELS)[number];

const payloadLevel = new Map<string, Level>(
  Object.entries(PAYLOAD_LAYERS).flatMap(([level, files]) => files.map((file) => [`shared/payload/${file}`, level as Level])),
);

/** The level of a repository file (without extension); undefined for what the layers do not cover (analysis, infra, tests). */
function levelOf(file: string): Level | undefined {
  if (file.startsWith('shared/payload/')) return payloadLevel.get(file);
  if (file.startsWith('functions/')) return 'functions';
  const folder = /^shared\/([^/]+)\//.exec(file)?.[1];
  if (folder === undefined) return file.startsWith('shared/') ? 'contracts' : undefined; // errors.ts, ids.ts...: below everything
  return LEVELS.find((level) => level === folder);
}

const rank = (level: Level) => LEVELS.indexOf(level);
const noExtension = (path: string) => relative(root, path).replace(/\.ts$/, '');

/** Every import of `files` that goes to a higher level than its importer's, as "importer (level) imports target (level)". */
function upwardImports(files: string[], level = levelOf): string[] {
  return files.flatMap((file) => {
    const from = level(file);
    if (!from) return [];
    return importsOf(join(root, `${file}.ts`)).flatMap((target) => {
      const to = level(target);
      return to && rank(to) > rank(from) ? [`${file} (${from}) imports ${target} (${to})`] : [];
    });
  });
}

describe('the SDK payload module', () => {
  const payloadFiles = tsFiles(join(root, 'shared/payload')).map(noExtension);

  it('places every one of its files in exactly one layer', () => {
    const listed = Object.values(PAYLOAD_LAYERS).flat().map((file) => `shared/payload/${file}`);

    expect([...listed].sort()).toEqual([...payloadFiles].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('imports nothing from a layer above each file', () => {
    expect(upwardImports(payloadFiles)).toEqual([]);
  });

  it('is imported by nothing below the layer of the file imported (stores call only its pure and write files)', () => {
    const others = ['shared', 'functions'].flatMap((folder) => tsFiles(join(root, folder))).map(noExtension).filter((file) => !payloadFiles.includes(file));

    expect(upwardImports(others).filter((offence) => offence.includes('shared/payload/'))).toEqual([]);
  });

  it('sees an upward import when one is there: serve.ts placed at the write level would import stores', () => {
    const misplaced = (file: string) => (file === 'shared/payload/serve' ? 'db' : levelOf(file));

    expect(upwardImports(['shared/payload/serve'], misplaced)).toContain('shared/payload/serve (db) imports shared/store/sdk-connections (store)');
  });

  it('finds a cycle when there is one', () => {
    const graph: Record<string, string[]> = { a: ['b'], b: ['c'], c: ['a'], d: ['a'] };

    expect(importCycles(Object.keys(graph), (file) => graph[file])).toEqual([['a', 'b', 'c']]);
  });

  it('leaves no import cycle in shared/ or functions/', () => {
    const files = ['shared', 'functions'].flatMap((folder) => tsFiles(join(root, folder))).map(noExtension);

    expect(importCycles(files)).toEqual([]);
  });
});
