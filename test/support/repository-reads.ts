import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: everything a test needs lives under it. */
export const repositoryRoot = path.resolve(__dirname, '..', '..');

/**
 * Where a test may read besides the repository: the folders made with mkdtemp in this process, where tests write
 * their own data (bundles, synthesized templates, invocation files). Not the whole OS temp dir: a clone made
 * there (as /tmp/lone-clone) would then read /tmp/shared unchecked. Nothing else either: the AWS SDK's look for
 * ~/.aws/config and ~/.aws/credentials is refused too, and it takes the refusal as "no file", so a developer's
 * own AWS profile cannot change what a test sees. jest's transform cache is read through graceful-fs's own copy
 * of fs, which this does not wrap. DynamoDB Local (Java), DuckDB's worker and the second server run in processes
 * of their own and are not watched here; the source scan (test/unit/standalone.test.ts) covers their code.
 */
const madeFolders = new Set<string>();
const remember = (folder: string) => {
  madeFolders.add(path.resolve(folder));
  madeFolders.add(fs.realpathSync(folder));
  return folder;
};

/** A test (or code a test runs) read a file outside the repository, which a fresh clone does not have. */
export class OutsideRepositoryReadError extends Error {
  readonly code = 'EOUTSIDEREPOSITORY';

  constructor(
    readonly operation: string,
    readonly file: string,
  ) {
    super(`fs.${operation}(${file}) reads outside the repository (${repositoryRoot}): vendor the file under test/fixtures/`);
  }
}

const isUnder = (file: string, folder: string) => file === folder || file.startsWith(folder + path.sep);

/** Installed programs a test looks for (the browser test checks /usr/bin/chromium): the machine, never test data. */
const systemFolders = ['/usr/bin'];

/**
 * Whether a package (not a test, nor our code) makes the read, to learn about the machine it runs on: playwright-core
 * looks at /proc and /run for WSL. Still refused under the home folder, so that a developer's ~/.aws cannot change
 * what a test sees. Only a read about to be refused pays for the stack.
 */
function packageLooksAtMachine(absolute: string): boolean {
  if (isUnder(absolute, os.homedir())) return false;
  const caller = new Error().stack!.split('\n').slice(1).find((frame) => !frame.includes(__filename) && !frame.includes('(node:') && !frame.includes(' node:'));
  return !!caller && caller.includes(`${path.sep}node_modules${path.sep}`);
}

/** The absolute path a file argument names, or undefined for a file descriptor. */
function absolutePath(file: unknown): string | undefined {
  if (typeof file === 'string') return path.resolve(file);
  if (Buffer.isBuffer(file)) return path.resolve(file.toString());
  if (file instanceof URL) return file.protocol === 'file:' ? fileURLToPath(file) : undefined;
  return undefined;
}

/** The error for a read of `file`, or undefined when the file is inside the repository or allowed. */
function outsideRead(operation: string, file: unknown): OutsideRepositoryReadError | undefined {
  const absolute = absolutePath(file);
  if (absolute === undefined || isUnder(absolute, repositoryRoot) || systemFolders.some((folder) => isUnder(absolute, folder)) || [...madeFolders].some((folder) => isUnder(absolute, folder)) || packageLooksAtMachine(absolute)) return undefined;
  return new OutsideRepositoryReadError(operation, absolute);
}

/** Whether open's flags read (its default, 'r', 'r+', 'rs+'...), not only write as write-file-atomic does for jest's cache. */
function opensToRead(flags: unknown): boolean {
  if (flags === undefined || flags === null) return true;
  if (typeof flags === 'string') return flags.startsWith('r') || flags.includes('+');
  if (typeof flags === 'number') return (flags & 3) !== fs.constants.O_WRONLY;
  return true;
}

/** The error for fs.`operation`(...args) when it reads outside the repository. */
function refusal(operation: string, args: unknown[]): OutsideRepositoryReadError | undefined {
  if ((operation === 'openSync' || operation === 'open') && !opensToRead(typeof args[1] === 'function' ? undefined : args[1])) return undefined;
  return outsideRead(operation, args[0]);
}

const sync = ['readFileSync', 'existsSync', 'statSync', 'lstatSync', 'readdirSync', 'opendirSync', 'openSync', 'accessSync', 'createReadStream'] as const;
const callback = ['readFile', 'stat', 'lstat', 'readdir', 'opendir', 'open', 'access'] as const;
const promised = ['readFile', 'stat', 'lstat', 'readdir', 'opendir', 'open', 'access'] as const;
const guarded = Symbol.for('switchyard.outsideRepositoryGuard');

/**
 * Makes every read through `fs` (sync, callback and `fs/promises`, which is the same object as `fs.promises`)
 * of a path outside the repository fail with {@link OutsideRepositoryReadError}, as fs fails: sync calls throw,
 * callback calls get the error, promise calls reject; and remembers the folders mkdtemp makes. `fs` is one object
 * per process, shared by every test file a jest worker runs, so it is wrapped once.
 */
export function guardReadsOutsideRepository(): void {
  const target = fs as unknown as Record<string | symbol, unknown>;
  if (target[guarded]) return;
  target[guarded] = true;
  const promises = fs.promises as unknown as Record<string, (...args: unknown[]) => unknown>;
  const functions = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of sync) {
    const original = functions[name]!;
    functions[name] = function (this: unknown, ...args: unknown[]) {
      const error = refusal(name, args);
      if (error) throw error;
      return original.apply(this, args);
    };
  }
  for (const name of callback) {
    const original = functions[name]!;
    functions[name] = function (this: unknown, ...args: unknown[]) {
      const error = refusal(name, args);
      const done = args.at(-1);
      if (error && typeof done === 'function') return void process.nextTick(() => done(error));
      if (error) throw error;
      return original.apply(this, args);
    };
  }
  for (const name of promised) {
    const original = promises[name]!;
    promises[name] = function (this: unknown, ...args: unknown[]) {
      const error = refusal(name, args);
      return error ? Promise.reject(error) : original.apply(this, args);
    };
  }
  const { mkdtempSync, mkdtemp } = fs;
  const mkdtempPromise = fs.promises.mkdtemp;
  fs.mkdtempSync = ((...args: Parameters<typeof mkdtempSync>) => remember(mkdtempSync(...args) as string)) as typeof mkdtempSync;
  functions.mkdtemp = (...args: unknown[]) => {
    const done = args.pop() as (error: Error | null, folder?: string) => void;
    (mkdtemp as (...args: unknown[]) => void)(...args, (error: Error | null, folder?: string) => done(error, folder && remember(folder)));
  };
  fs.promises.mkdtemp = (async (...args: Parameters<typeof mkdtempPromise>) => remember((await mkdtempPromise(...args)) as string)) as typeof mkdtempPromise;
}
