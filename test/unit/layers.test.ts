import { join, relative } from 'node:path';
import { importsOf, root, tsFiles } from '../support/imports';

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
