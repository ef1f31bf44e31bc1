import { join, relative } from 'node:path';
import { PAYLOAD_LAYERS } from '../../shared/payload/layers';
import { importCycles, root, tsFiles } from '../support/imports';
import { levelOf, upwardImports } from '../support/layers';

const noExtension = (path: string) => relative(root, path).replace(/\.ts$/, '');

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
