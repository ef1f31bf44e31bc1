import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapErrorStack, sourceMappedStack } from '../../shared/source-maps';

describe('stacks mapped through a bundle’s source map', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-source-maps-'));
  const bundle = join(dir, 'index.mjs');
  const unmapped = join(dir, 'other.mjs');
  const broken = join(dir, 'broken.mjs');
  beforeAll(() => {
    writeFileSync(bundle, 'throw 1');
    // Line 1 of the bundle: column 0 is shared/a.ts 1:1; column 4 is shared/b.ts 3:7.
    writeFileSync(`${bundle}.map`, JSON.stringify({ version: 3, sources: ['shared/a.ts', 'shared/b.ts'], names: [], mappings: 'AAAA,ICEM' }));
    writeFileSync(unmapped, 'throw 1');
    writeFileSync(broken, 'throw 1');
    writeFileSync(`${broken}.map`, '{"version": 3, "mappi');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the source file, line and column of each frame in the bundle', () => {
    const stack = [
      'Error: boom',
      `    at inner (file://${bundle}:1:5)`,
      `    at async outer (${bundle}:1:1)`,
      `    at other (file://${unmapped}:1:3)`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    ].join('\n');

    expect(sourceMappedStack(stack).split('\n')).toEqual([
      'Error: boom',
      '    at inner (shared/b.ts:3:7)',
      '    at async outer (shared/a.ts:1:1)',
      `    at other (file://${unmapped}:1:3)`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    ]);
  });

  it('leaves the frames of a file whose map cannot be read as they are', () => {
    const stack = `Error: boom\n    at f (file://${broken}:1:1)\n    at g (file://${bundle}:1:1)`;

    expect(sourceMappedStack(stack)).toBe(`Error: boom\n    at f (file://${broken}:1:1)\n    at g (shared/a.ts:1:1)`);
  });

  it('maps an error and its causes once, however often it is logged', () => {
    const cause = Object.assign(new Error('cause'), { stack: `Error: cause\n    at c (file://${bundle}:1:1)` });
    const error = Object.assign(new Error('outer', { cause }), { stack: `Error: outer\n    at o (file://${bundle}:1:5)` });

    mapErrorStack(mapErrorStack(error));

    expect(error.stack).toBe('Error: outer\n    at o (shared/b.ts:3:7)');
    expect(cause.stack).toBe('Error: cause\n    at c (shared/a.ts:1:1)');
  });
});
