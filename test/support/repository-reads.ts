import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: everything a test needs lives under it. */
export const repositoryRoot = path.resolve(__dirname, '..', '..');

/**
 * Where a test may read besides the repository: the OS temp dir, where tests write their own data (DuckDB
 * files, bundles) and jest keeps its transform cache. Nothing else: the AWS SDK's look for ~/.aws/config and
 * ~/.aws/credentials is refused too, and it takes the refusal as "no file", so a developer's own AWS profile
 * cannot change what a test sees. DynamoDB Local (Java) and the second server run in processes of their own and
 * are not watched here; the source scan of test/unit/standalone.test.ts covers their code.
 */
const allowedOutside = [...new Set([tmpdir(), fs.realpathSync(tmpdir())])];

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

/** The absolute path a file argument names, or undefined for a file descriptor. */
function absolutePath(file: unknown): string | undefined {
  if (typeof file === 'string') return path.resolve(file);
  if (Buffer.isBuffer(file)) return path.resolve(file.toString());
  if (file instanceof URL) return file.protocol === 'file:' ? fileURLToPath(file) : undefined;
  return undefined;
}

/** The error for a read of `file`, or undefined when the file is inside the repository or allowed. */
export function outsideRead(operation: string, file: unknown): OutsideRepositoryReadError | undefined {
  const absolute = absolutePath(file);
  if (absolute === undefined || isUnder(absolute, repositoryRoot) || allowedOutside.some((folder) => isUnder(absolute, folder))) return undefined;
  return new OutsideRepositoryReadError(operation, absolute);
}

const sync = ['readFileSync', 'existsSync', 'statSync', 'lstatSync', 'readdirSync', 'opendirSync', 'openSync', 'accessSync', 'createReadStream'] as const;
const callback = ['readFile', 'stat', 'lstat', 'readdir', 'opendir', 'open', 'access'] as const;
const promised = ['readFile', 'stat', 'lstat', 'readdir', 'opendir', 'open', 'access'] as const;
const guarded = Symbol.for('switchyard.outsideRepositoryGuard');

/**
 * Makes every read through `fs` (sync, callback and `fs/promises`, which is the same object as `fs.promises`)
 * of a path outside the repository fail with {@link OutsideRepositoryReadError}, as fs fails: sync calls throw,
 * callback calls get the error, promise calls reject. `fs` is one object per process, shared by every test file
 * a jest worker runs, so it is wrapped once.
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
      const error = outsideRead(name, args[0]);
      if (error) throw error;
      return original.apply(this, args);
    };
  }
  for (const name of callback) {
    const original = functions[name]!;
    functions[name] = function (this: unknown, ...args: unknown[]) {
      const error = outsideRead(name, args[0]);
      const done = args.at(-1);
      if (error && typeof done === 'function') return void process.nextTick(() => done(error));
      if (error) throw error;
      return original.apply(this, args);
    };
  }
  for (const name of promised) {
    const original = promises[name]!;
    promises[name] = function (this: unknown, ...args: unknown[]) {
      const error = outsideRead(name, args[0]);
      return error ? Promise.reject(error) : original.apply(this, args);
    };
  }
}
