import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative module a file imports or re-exports, resolved against the repository root. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers = [...source.matchAll(/(?:from|import|require\()\s*['"]([^'"]+)['"]/g)].map((match) => match[1]);
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(root, resolve(file, '..', specifier)));
}

describe('layers', () => {
  it.each(['shared/domain', 'shared/store'])('no file under %s imports from shared/api', (folder) => {
    const offenders = tsFiles(join(root, folder)).flatMap((file) =>
      importsOf(file)
        .filter((target) => target === 'shared/api' || target.startsWith('shared/api/'))
        .map((target) => `${relative(root, file)} imports ${target}`),
    );

    expect(offenders).toEqual([]);
  });

  it('sees an import from shared/api when one is there', () => {
    const file = join(root, 'shared/api/endpoint.ts');

    expect(importsOf(file)).toContain('shared/api/errors');
  });
});
