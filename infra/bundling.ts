import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';
import { compressDocsAsset, docsAssetFolder, encodedSuffix } from '../shared/api/docs-assets';
import { docsAssets } from '../shared/api/docs-page';
import { buildOpenApiDocument } from '../shared/api/openapi';
import { openApiDocumentFiles } from '../shared/api/openapi-document';
import { openApiYaml } from '../shared/api/openapi-yaml';
import { routes } from '../shared/contracts/registry';

/** The repository root: handler paths are relative to it. */
export const repoRoot = join(__dirname, '..');

export const runtime = Runtime.NODEJS_22_X;

/**
 * How every function is bundled; the bench and the bundle tests bundle with exactly these options.
 * The SDK is bundled (only DuckDB is external: no function runs it), so esbuild keeps only the commands a function imports
 * instead of loading the runtime's whole SDK at cold start. ESM with module-first resolution picks
 * each package's ES build, which esbuild can tree-shake (the CommonJS builds it replaced cost about
 * 200 KB per function). The banner gives any CommonJS module left in a bundle the `require` an ES
 * module lacks; without it, esbuild's shim would throw "Dynamic require of … is not supported" at
 * run time. Stack traces need only the mappings, not the sources.
 */
export const esbuildOptions = {
  bundle: true,
  platform: 'node',
  target: runtime.name.replace(/^nodejs(\d+)\.x$/, 'node$1'),
  format: 'esm',
  mainFields: ['module', 'main'],
  outExtension: { '.js': '.mjs' },
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  // DuckDB (a native module) is for local runs only; the analysis code loads it lazily and never
  // on a Lambda path, so it is left out of every bundle rather than shipped unused.
  external: ['@duckdb/node-api'],
  // On Lambda, credentials are always in the environment: see infra/lambda-credentials.ts.
  alias: { '@aws-sdk/credential-provider-node': './infra/lambda-credentials.ts' },
  logLevel: 'warning',
} satisfies BuildOptions;

/** The file Lambda loads for `index.handler`: an ES module, so `.mjs`. */
export const bundleFileName = 'index.mjs';

/** Where bundleHandlers puts the bundle of `handler` (relative to the repository root) under `outdir`. */
export const bundleFile = (outdir: string, handler: string) => join(outdir, bundleName(handler), bundleFileName);

/**
 * Bundles handler files (relative to the repository root) in one esbuild run into
 * `<outdir>/<handler path without .ts>/index.mjs`. One run parses the shared code once. A bundle
 * that serves the OpenAPI document gets it generated now, as `openapi.json` and `openapi.yaml` next to `index.mjs`;
 * one that reads form bodies gets the form parser, `qs.mjs`, which it imports on its first form body,
 * one that checks feature values gets Ajv, `ajv.mjs`, which it imports on its first JSON schema (see
 * infra/esbuild-build.mjs), and one that serves the API reference page's files gets them in `docs/`, each also
 * precompressed with brotli and gzip (see shared/api/docs-assets.ts).
 */
export function bundleHandlers(handlers: string[], outdir: string): Metafile {
  const metafile = buildWithPlugins({
    ...esbuildOptions,
    absWorkingDir: repoRoot,
    entryPoints: handlers.map((handler) => ({ in: handler, out: `${bundleName(handler)}/index` })),
    outdir,
    metafile: true,
  });
  const needDocument = [...bundleInputs(metafile)].filter(([, inputs]) => inputs.includes(openApiDocumentModule));
  if (needDocument.length > 0) {
    const document = buildOpenApiDocument(routes);
    const texts = { json: JSON.stringify(document), yaml: openApiYaml(document) };
    for (const [handler] of needDocument) {
      for (const format of ['json', 'yaml'] as const) writeFileSync(join(outdir, bundleName(handler), openApiDocumentFiles[format]), texts[format]);
    }
  }
  const needDocsAssets = [...bundleInputs(metafile)].filter(([, inputs]) => inputs.includes(docsAssetsModule));
  if (needDocsAssets.length > 0) {
    const files = Object.entries(docsAssets).flatMap(([name, { source }]): [string, Buffer][] => {
      const bytes = readFileSync(join(repoRoot, source));
      return [[name, bytes], ...(['br', 'gzip'] as const).map((encoding): [string, Buffer] => [name + encodedSuffix[encoding], compressDocsAsset(bytes, encoding, 'max')])];
    });
    for (const [handler] of needDocsAssets) {
      const folder = join(outdir, bundleName(handler), docsAssetFolder);
      mkdirSync(folder, { recursive: true });
      for (const [file, bytes] of files) writeFileSync(join(folder, file), bytes);
    }
  }
  for (const { file, contents } of Object.values(packagesApart)) {
    const importers = Object.entries(metafile.outputs).filter(([, output]) => output.imports.some((entry) => entry.external && entry.path === `./${file}`));
    if (importers.length === 0) continue;
    const [code] = buildSync({ ...esbuildOptions, sourcemap: false, write: false, absWorkingDir: repoRoot, stdin: { contents, resolveDir: repoRoot } }).outputFiles;
    for (const [output] of importers) writeFileSync(join(repoRoot, dirname(output), file), code.contents);
  }
  return metafile;
}

/**
 * Packages a function imports on its first use of them only, each built into a file of its own
 * shipped next to every bundle that imports it (infra/esbuild-build.mjs leaves the import to that file).
 */
const packagesApart = {
  qs: { file: 'qs.mjs', contents: "export { parse } from 'qs';" },
  ajv: { file: 'ajv.mjs', contents: "export { default } from 'ajv';" },
};

/** The form parser shipped next to a bundle that reads form bodies. */
export const formParserFile = packagesApart.qs.file;

/** Ajv, shipped next to a bundle that checks feature values against a JSON schema. */
export const schemaValidatorFile = packagesApart.ajv.file;

/**
 * One esbuild build with the plugin of infra/esbuild-build.mjs (only the schemas a function reaches are
 * bundled), run in a child process: plugins need esbuild's asynchronous API, and CDK bundles synchronously.
 */
function buildWithPlugins(options: BuildOptions): Metafile {
  const metafile = execFileSync(process.execPath, [join(__dirname, 'esbuild-build.mjs')], {
    input: JSON.stringify(options),
    stdio: ['pipe', 'pipe', 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(metafile.toString('utf8'));
}

const bundleName = (handler: string) => handler.replace(/\.ts$/, '');
const openApiDocumentModule = 'shared/api/openapi-document.ts';
const docsAssetsModule = 'shared/api/docs-assets.ts';

/**
 * The input files (repository-relative, e.g. `node_modules/zod/v4/core/schemas.js`) of each entry's
 * bundle, by entry file; with code splitting, those of the chunks it imports too.
 */
export function bundleInputs(metafile: Metafile): Map<string, string[]> {
  const inputsOf = (file: string, seen: Set<string>): string[] => {
    if (seen.has(file) || !metafile.outputs[file]) return [];
    seen.add(file);
    const output = metafile.outputs[file];
    return [...Object.keys(output.inputs), ...output.imports.flatMap((chunk) => inputsOf(chunk.path, seen))];
  };
  const inputs = new Map<string, string[]>();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint) inputs.set(output.entryPoint, [...new Set(inputsOf(file, new Set()))]);
  }
  return inputs;
}

/** The npm package an input file belongs to, e.g. `@aws-sdk/client-dynamodb`; undefined for our own code. */
export const packageOf = (input: string) => input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];

/**
 * Packages no API function may bundle: DuckDB is native and the statistics and Athena clients serve
 * only the results engine; in an endpoint they would only add size and cold start.
 */
export const analysisOnlyPackages = [/^@duckdb\//, /^@stdlib\//, /^@aws-sdk\/client-athena$/, /^@aws-sdk\/client-sts$/];

/** The analysis-only packages among a bundle's input files. */
export function analysisOnlyPackagesIn(inputs: string[]): string[] {
  const packages = new Set(inputs.map(packageOf).filter((name) => name !== undefined));
  return [...packages].filter((name) => analysisOnlyPackages.some((pattern) => pattern.test(name))).sort();
}

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
