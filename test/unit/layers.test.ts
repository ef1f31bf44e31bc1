import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { importCycles, importsOf, root, tsFiles } from '../support/imports';
import { LEVELS, levelOf, upwardImports } from '../support/layers';

const repositoryFiles = (...folders: string[]) =>
  folders.flatMap((folder) => tsFiles(join(root, folder))).map((path) => relative(root, path).replace(/\.ts$/, ''));

describe('layers', () => {
  const files = repositoryFiles('shared', 'functions');

  it('places every file of shared/ and functions/ at a level', () => {
    expect(files.filter((file) => levelOf(file) === undefined)).toEqual([]);
  });

  it(`imports nothing from a higher level (bottom up: ${LEVELS.join(', ')})`, () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it('keeps API handlers to the HTTP layer, use cases and contracts: everything else goes through a use case', () => {
    const allowed = new Set(['api', 'use-cases', 'contracts']);
    const reached = files
      .filter((file) => file.startsWith('functions/') && !/^functions\/(analysis|events|scheduler)\//.test(file))
      .flatMap((file) => importsOf(join(root, `${file}.ts`)).map((target) => [file, target, levelOf(target)] as const))
      .filter(([, , level]) => !level || !allowed.has(level))
      .map(([file, target, level]) => `${file} imports ${target} (${level})`);

    expect(reached).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(files)).toEqual([]);
  });

  it('sees an upward import when one is there: a store that imported a use case', () => {
    const imports = (file: string) => (file === 'shared/store/features' ? ['shared/use-cases/features'] : []);

    expect(upwardImports(['shared/store/features'], levelOf, imports)).toEqual([
      'shared/store/features (store) imports shared/use-cases/features (use-cases)',
    ]);
  });

  it('finds a cycle planted in real files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      mkdirSync(join(dir, 'store'));
      writeFileSync(join(dir, 'store/a.ts'), "import { b } from './b';\nexport const a = () => b;\n");
      writeFileSync(join(dir, 'store/b.ts'), "import { c } from '../c';\nexport const b = 1;\n");
      writeFileSync(join(dir, 'c.ts'), "import { a } from './store/a';\nexport const c = a;\n");
      writeFileSync(join(dir, 'd.ts'), "export const d = 1;\n");
      const planted = tsFiles(dir).map((path) => relative(dir, path).replace(/\.ts$/, ''));
      const imports = (file: string) => importsOf(join(dir, `${file}.ts`)).map((target) => relative(relative(root, dir), target));

      expect(importCycles(planted, imports)).toEqual([['c', 'store/a', 'store/b']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
