/**
 * Bundle size of every function, bundled exactly as the stack bundles them (infra/bundling.ts:
 * minified, SDK included), against the floor: bench/bare-handler.ts, one GetItem with the same
 * DynamoDB client. Run alone with `npx tsx bench/bundle-sizes.ts`.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { bundleHandlers, repoRoot } from '../infra/bundling';
import { allHandlers } from '../infra/lambda';
import { printTable, round, saveResults } from './report';

export const floorHandler = 'bench/bare-handler.ts';

/** Every function should stay within this multiple of the floor. */
export const targetRatio = 1.25;

export interface BundleSize {
  handler: string;
  /** Minified JavaScript, source map excluded. */
  bytes: number;
  ratio: number;
  /** The packages that add most over the floor, e.g. `zod +91 KB`. */
  largestAdditions: string[];
}

/** Output bytes per package (or per top folder of this repository) of one bundle. */
function bytesByPackage(metafile: Metafile, outputFile: string): Map<string, number> {
  const output = Object.entries(metafile.outputs).find(([file]) => join(repoRoot, file) === outputFile)?.[1];
  const sizes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const name = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? input.split('/').slice(0, 2).join('/');
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
    const outputOf = (handler: string) => join(outdir, handler.replace(/\.ts$/, ''), 'index.js');
    const floorBytes = statSync(outputOf(floorHandler)).size;
    const floorPackages = bytesByPackage(metafile, outputOf(floorHandler));

    const sizes = handlers.map((handler): BundleSize => {
      const bytes = statSync(outputOf(handler)).size;
      const additions = [...bytesByPackage(metafile, outputOf(handler))]
        .map(([name, size]) => [name, size - (floorPackages.get(name) ?? 0)] as const)
        .filter(([, extra]) => extra >= 1024)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([name, extra]) => `${name} +${Math.round(extra / 1024)} KB`);
      return { handler, bytes, ratio: bytes / floorBytes, largestAdditions: additions };
    });
    return { floorBytes, sizes: sizes.sort((a, b) => b.bytes - a.bytes) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Prints the bundle-size table (`npm run bench -- bundles`) and saves it under bench/results/. */
export async function printBundleSizes(): Promise<void> {
  const { floorBytes, sizes } = await bundleSizes();
  const kb = (bytes: number) => round(bytes / 1024, 1);
  printTable(`Bundle sizes (minified; floor ${floorHandler} = ${kb(floorBytes)} KB; target ≤ ${targetRatio}× floor)`, [
    { function: floorHandler, 'minified KB': kb(floorBytes), '× floor': 1, over: '', 'largest additions over the floor': '' },
    ...sizes.map((size) => ({
      function: size.handler,
      'minified KB': kb(size.bytes),
      '× floor': round(size.ratio),
      over: size.ratio > targetRatio ? 'OVER' : '',
      'largest additions over the floor': size.largestAdditions.join(', '),
    })),
  ]);
  const over = sizes.filter((size) => size.ratio > targetRatio);
  console.log(`\n${sizes.length} functions, ${over.length} over ${targetRatio}× the floor.`);
  saveResults('bundle-sizes', { floorHandler, floorBytes, targetRatio, sizes });
}

if (require.main === module) {
  printBundleSizes().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
