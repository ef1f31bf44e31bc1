import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';

/** The repository root: handler paths are relative to it. */
export const repoRoot = join(__dirname, '..');

export const runtime = Runtime.NODEJS_22_X;

/**
 * How every function is bundled; bench/bundle-sizes.ts bundles with exactly these options. The SDK
 * is bundled (only DuckDB is external), so esbuild keeps only the commands a function imports instead of
 * loading the runtime's whole SDK at cold start. Stack traces need only the mappings, not the sources.
 */
export const esbuildOptions = {
  bundle: true,
  platform: 'node',
  target: runtime.name.replace(/^nodejs(\d+)\.x$/, 'node$1'),
  format: 'cjs',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  // DuckDB (a native module) is for local runs only; the analysis code loads it lazily and never
  // on a Lambda path, so it is left out of every bundle rather than shipped unused.
  external: ['@duckdb/node-api'],
  logLevel: 'warning',
} satisfies BuildOptions;

/**
 * Bundles handler files (relative to the repository root) in one esbuild run into
 * `<outdir>/<handler path without .ts>/index.js`. One run parses the shared code once.
 */
export function bundleHandlers(handlers: string[], outdir: string): Metafile {
  const result = buildSync({
    ...esbuildOptions,
    absWorkingDir: repoRoot,
    entryPoints: handlers.map((handler) => ({ in: handler, out: `${bundleName(handler)}/index` })),
    outdir,
    metafile: true,
  });
  return result.metafile;
}

const bundleName = (handler: string) => handler.replace(/\.ts$/, '');

let built: { dir: string; handlers: Set<string> } | undefined;

/**
 * The bundle of `handler`, from one esbuild run over every handler of the app (`allHandlers`),
 * made the first time any function needs its code. Spawning esbuild per function (as
 * NodejsFunction does, through npx) costs seconds per function; a hundred functions make minutes.
 */
function bundleOf(handler: string, allHandlers: () => string[]): string {
  if (!built) {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-bundles-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const handlers = new Set([...allHandlers().filter((file) => existsSync(join(repoRoot, file))), handler]);
    bundleHandlers([...handlers], dir);
    built = { dir, handlers };
  }
  if (!built.handlers.has(handler)) {
    bundleHandlers([handler], built.dir);
    built.handlers.add(handler);
  }
  return join(built.dir, bundleName(handler));
}

/**
 * Lambda code for one handler file. Bundling goes through CDK's asset bundling, so
 * `cdk synth --exclusively` and the `aws:cdk:bundling-stacks` context skip it like any other.
 */
export function handlerCode(handler: string, allHandlers: () => string[]): Code {
  const local: ILocalBundling = {
    tryBundle(outputDir) {
      if (!existsSync(join(repoRoot, handler))) throw new Error(`Handler file ${handler} does not exist`);
      cpSync(bundleOf(handler, allHandlers), outputDir, { recursive: true });
      return true;
    },
  };
  return Code.fromAsset(repoRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      local,
      // Never used (local bundling always answers); names the handler so each asset is distinct.
      image: DockerImage.fromRegistry(runtime.bundlingImage.image),
      command: ['esbuild', handler],
    },
  });
}
