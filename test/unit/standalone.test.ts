import fs, { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { outsidePaths, scannedFolders, sourceFiles } from '../support/outside-paths';
import { OutsideRepositoryReadError, repositoryRoot } from '../support/repository-reads';

// The repository stands on its own: a fresh clone with nothing beside it runs every test. This file holds
// outside paths on purpose (as the cases the scan must catch), so the scan leaves it out.

const outsideFile = path.join(repositoryRoot, '..', 'elsewhere', 'reference', 'growthbook-v1-openapi.yaml');
/**
 * The guard's message for a refused read. Compared as a message, not as an error: the guard wraps fs once per worker,
 * so what it throws comes from its first instance, whose class is not this test file's.
 */
const refused = (operation: string, file: string) => new OutsideRepositoryReadError(operation, file).message;

describe('the source of test/, bench/, scripts/, infra/, functions/ and shared/', () => {
  it('names no path outside the repository', () => {
    const files = scannedFolders.flatMap((folder) => sourceFiles(path.join(repositoryRoot, folder))).filter((file) => file !== __filename);

    const offenders = files.flatMap((file) => outsidePaths(file, readFileSync(file, 'utf8')));

    expect(files.length).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  });

  // Each planted path leaves the repository for a folder beside it (any name: the checker must not rely on one).
  it.each([
    ['a path climbing out of the repository from __dirname', "readFileSync(path.join(__dirname, '../../../elsewhere/reference/growthbook-v1-openapi.yaml'), 'utf8')"],
    ['a join climbing out one segment at a time', "readFileSync(join(__dirname, '..', '..', '..', 'elsewhere', 'reference', name))"],
    ['a constant built from __dirname that climbs further', "const root = join(__dirname, '..', '..');\nreadFileSync(join(root, '..', 'elsewhere', 'spec', 'api-spec.md'))"],
    ['a path relative to where npm runs', "readFileSync('../elsewhere/fixtures/gbstats/README.md')"],
    ['an absolute path of this machine', "const REFERENCE = '/work/elsewhere/reference/growthbook-v1-openapi.yaml';"],
    ['a module outside the repository', "import { x } from '../../../elsewhere/reference/x';"],
  ])('catches %s', (_case, source) => {
    const file = path.join(repositoryRoot, 'test', 'compat', 'example.test.ts');

    expect(outsidePaths(file, source)).toHaveLength(1);
  });

  it('lets paths inside the repository through', () => {
    const file = path.join(repositoryRoot, 'test', 'compat', 'example.test.ts');
    const source = [
      "import { routes } from '../../shared/contracts/registry';",
      "const document = readFileSync(path.join(__dirname, '..', 'fixtures', 'reference', file));",
      "const packageJson = join(__dirname, '../../package.json');",
      "const root = join(__dirname, '..', '..');\nreadFileSync(join(root, 'cdk.json'));",
      `runDuckDbQueries([{ id: 'q', sql: "SELECT * FROM read_csv('../x.csv')" }], { dataDir });`,
    ].join('\n');

    expect(outsidePaths(file, source)).toEqual([]);
  });
});

describe('reading a file outside the repository in a test', () => {
  it('fails for each way fs reads', async () => {
    const outsideFolder = path.dirname(outsideFile);
    const attempts: Array<[string, string, () => unknown]> = [
      ['readFileSync', outsideFile, () => readFileSync(outsideFile, 'utf8')],
      ['existsSync', outsideFile, () => existsSync(outsideFile)],
      ['statSync', outsideFile, () => statSync(outsideFile)],
      ['readdirSync', outsideFolder, () => readdirSync(outsideFolder)],
      ['createReadStream', outsideFile, () => createReadStream(outsideFile)],
      ['openSync', outsideFile, () => fs.openSync(outsideFile, 'r')],
    ];

    for (const [operation, file, attempt] of attempts) {
      expect(attempt).toThrow(refused(operation, file));
    }
    await expect(readFile(outsideFile, 'utf8')).rejects.toThrow(refused('readFile', outsideFile));
    await expect(fs.promises.opendir(outsideFolder)).rejects.toThrow(refused('opendir', outsideFolder));
    const viaCallback = new Promise((resolve, reject) => fs.readFile(outsideFile, (error, data) => (error ? reject(error) : resolve(data))));
    await expect(viaCallback).rejects.toThrow(refused('readFile', outsideFile));
  });

  it('fails with a path made relative from the working directory', () => {
    expect(() => readFileSync('../elsewhere/reference/growthbook-v1-openapi.yaml')).toThrow(/reads outside the repository/);
  });

  it('still reads the repository and the folders the test made with mkdtemp', async () => {
    const scratch = fs.mkdtempSync(path.join(tmpdir(), 'standalone-'));
    const promised = await fs.promises.mkdtemp(path.join(tmpdir(), 'standalone-'));
    fs.writeFileSync(path.join(scratch, 'note.txt'), 'kept');
    fs.writeFileSync(path.join(promised, 'note.txt'), 'kept too');

    expect(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')).toContain('"name": "switchyard"');
    expect(await readFile(path.join(scratch, 'note.txt'), 'utf8')).toBe('kept');
    expect(readFileSync(path.join(promised, 'note.txt'), 'utf8')).toBe('kept too');
    fs.rmSync(scratch, { recursive: true });
    fs.rmSync(promised, { recursive: true });
  });

  it('fails for a file of the OS temp dir the test did not make, as a sibling of a clone made there would be', () => {
    const stray = path.join(tmpdir(), 'elsewhere', 'reference', 'growthbook-v1-openapi.yaml');

    expect(() => readFileSync(stray)).toThrow(refused('readFileSync', stray));
  });
});
