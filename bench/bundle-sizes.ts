/**
 * Bundle size of every function, bundled exactly as the stack bundles them (infra/bundling.ts:
 * ES modules, minified, SDK included), against the floor built the same way: bench/bare-handler.ts,
 * one GetItem with the same DynamoDB client. Also lists any analysis-only package (DuckDB, the
 * statistics libraries, Athena) found among a bundle's inputs, and the files shipped next to it.
 * Run alone with `npx tsx bench/bundle-sizes.ts`.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Metafile } from 'esbuild';
import { analysisOnlyPackagesIn, bundleFile, bundleFileName, bundleHandlers, bundleInputs, packageOf, repoRoot } from '../infra/bundling';
import { allHandlers } from '../infra/lambda';
import { printTable, round, saveResults } from './report';

export const floorHandler = 'bench/bare-handler.ts';

/**
 * No function's bundle may be larger than this: the bare GetItem handler as it was built before
 * (CommonJS, main-first resolution), 547,915 bytes.
 */
export const maxBytes = 547_915;

export interface BundleSize {
  handler: string;
  /** Minified JavaScript, source map excluded. */
  bytes: number;
  ratio: number;
  /** The packages that add most over the floor, e.g. `zod +91 KB`. */
  largestAdditions: string[];
  /** Analysis-only packages among the bundle's inputs; must stay empty. */
  analysisOnly: string[];
  /** Files shipped next to the bundle besides its source map, e.g. `openapi.json 622 KB`. */
  shipped: string[];
}

const kb = (bytes: number) => round(bytes / 1024, 1);

/** Output bytes per package (or per top folder of this repository) of one bundle. */
function bytesByPackage(metafile: Metafile, handler: string): Map<string, number> {
  const output = Object.values(metafile.outputs).find((candidate) => candidate.entryPoint === handler);
  const sizes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(input) ?? input.split('/').slice(0, 2).join('/');
    sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
  }
  return sizes;
}

/** Bundles the floor and every handler in one esbuild run and measures each bundle. */
export async function bundleSizes(): Promise<{ floorBytes: number; sizes: BundleSize[] }> {
  const outdir = mkdtempSync(join(tmpdir(), 'switchyard-bundle-sizes-'));
  try {
    // A handler still being written is left out rather than failing the whole run.
    const handlers = [...new Set(allHandlers())].filter((handler) => existsSync(join(repoRoot, handler)));
    const metafile = bundleHandlers([floorHandler, ...handlers], outdir);
    const inputs = bundleInputs(metafile);
    const floorBytes = statSync(bundleFile(outdir, floorHandler)).size;
    const floorPackages = bytesByPackage(metafile, floorHandler);

    const sizes = handlers.map((handler): BundleSize => {
      const file = bundleFile(outdir, handler);
      const bytes = statSync(file).size;
      const additions = [...bytesByPackage(metafile, handler)]
        .map(([name, size]) => [name, size - (floorPackages.get(name) ?? 0)] as const)
        .filter(([, extra]) => extra >= 1024)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([name, extra]) => `${name} +${Math.round(extra / 1024)} KB`);
      const shipped = readdirSync(dirname(file))
        .filter((name) => name !== bundleFileName && name !== `${bundleFileName}.map`)
        .map((name) => `${name} ${kb(statSync(join(dirname(file), name)).size)} KB`);
      const analysisOnly = analysisOnlyPackagesIn(inputs.get(handler) ?? []);
      return { handler, bytes, ratio: bytes / floorBytes, largestAdditions: additions, analysisOnly, shipped };
    });
    return { floorBytes, sizes: sizes.sort((a, b) => b.bytes - a.bytes) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Prints the bundle-size table (`npm run bench -- bundles`) and saves it under bench/results/. */
export async function printBundleSizes(): Promise<void> {
  const { floorBytes, sizes } = await bundleSizes();
  printTable(
    `Bundle sizes (ES modules, minified; floor ${floorHandler} built the same way = ${kb(floorBytes)} KB; limit ${kb(maxBytes)} KB, the floor as built before in CommonJS)`,
    [
      { function: floorHandler, 'minified KB': kb(floorBytes), '× floor': 1, over: '', 'analysis-only packages': '', 'largest additions over the floor': '', 'shipped with it': '' },
      ...sizes.map((size) => ({
        function: size.handler,
        'minified KB': kb(size.bytes),
        '× floor': round(size.ratio),
        over: size.bytes > maxBytes ? 'OVER' : '',
        'analysis-only packages': size.analysisOnly.join(', ') || 'none',
        'largest additions over the floor': size.largestAdditions.join(', '),
        'shipped with it': size.shipped.join(', '),
      })),
    ],
  );
  const over = sizes.filter((size) => size.bytes > maxBytes);
  const withAnalysis = sizes.filter((size) => size.analysisOnly.length > 0);
  const ratios = sizes.map((size) => size.ratio).sort((a, b) => a - b);
  console.log(
    `\n${sizes.length} functions: ${kb(sizes.at(-1)!.bytes)}–${kb(sizes[0].bytes)} KB, ` +
      `median ${round(ratios[Math.floor(ratios.length / 2)])}× the floor; ${over.length} over ${kb(maxBytes)} KB; ` +
      `${withAnalysis.length} with an analysis-only package.`,
  );
  saveResults('bundle-sizes', { floorHandler, floorBytes, maxBytes, sizes });
}

if (require.main === module) {
  printBundleSizes().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
