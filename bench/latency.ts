/**
 * Cold start and warm latency of every function, bundled as the stack bundles it (ES modules), each
 * run in a fresh Node process (bench/bundle-runner.mjs) next to the bare handler built the same way:
 * one GetItem with the AWS SDK's client and no middleware. A second floor does the same GetItem with
 * our own client (bench/bare-wire-handler.ts), once per pass. Each function's cold start is the median of
 * COLD_RUNS fresh processes, each followed by one of the bare handler, so a machine that gets busier
 * or quieter during the run moves both sides of the ratio alike.
 *
 * While developing on a shared machine, `BENCH_COLD_EVERY=k` times every k-th step only (after the
 * first pass, the others are served in this process from source, as later steps need what they
 * create), `BENCH_COLD_ONLY=postFeature,listFeatures` times only the named operations (the other steps
 * are served from source, as above) and `BENCH_COLD_RUNS` sets the number of runs.
 * `BENCH_COLD_INSTRUCTIONS=1` also counts each cold process's instructions under valgrind (see
 * run-bundle.ts), a measure a busy machine hardly moves; warm requests are then not timed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFile, bundleHandlers } from '../infra/bundling';
import { invoke, lambdaInvocation } from '../infra/local/server';
import { printTable, quantile, round, saveResults } from './report';
import { runBundle, type BundleRun } from './run-bundle';
import { scenario, type Ids } from './scenarios';

const WARM_REQUESTS = Number(process.env.BENCH_WARM_REQUESTS ?? 30);
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 5);
const COLD_EVERY = Number(process.env.BENCH_COLD_EVERY ?? 1);
const COLD_ONLY = process.env.BENCH_COLD_ONLY ? new Set(process.env.BENCH_COLD_ONLY.split(',')) : undefined;
/** Every endpoint's cold start should stay within this multiple of the bare handler's. */
export const coldTargetRatio = 1.1;
const floorHandler = 'bench/bare-handler.ts';
const wireFloorHandler = 'bench/bare-wire-handler.ts';
const COUNT_INSTRUCTIONS = process.env.BENCH_COLD_INSTRUCTIONS === '1';

const median = (values: number[]) => quantile(values, 0.5);

const medianInstructions = (runs: BundleRun[]) => median(runs.map((r) => r.coldInstructions!));

/** A function's instructions (median of its counted runs), in millions and against its bare runs' and the second floor's. */
function instructionColumns(runs: BundleRun[], bareRuns: BundleRun[], wireRuns: BundleRun[]) {
  const instructions = medianInstructions(runs);
  return {
    'cold M instructions': round(instructions / 1e6),
    'cold instructions ×bare': round(instructions / medianInstructions(bareRuns)),
    'cold instructions ×our-client floor': round(instructions / medianInstructions(wireRuns)),
  };
}

const warmColumns = (warm: number[], bareWarm: number) => ({
  'warm p50 ms': round(median(warm), 2),
  'warm p99 ms': round(quantile(warm, 0.99), 2),
  'warm ×bare': round(median(warm) / bareWarm),
});

/** How the ratios spread: min, quartiles, p90, max, and how many meet the target. */
function distribution(ratios: number[]) {
  return {
    functions: ratios.length,
    min: round(Math.min(...ratios)),
    p25: round(quantile(ratios, 0.25)),
    median: round(median(ratios)),
    p75: round(quantile(ratios, 0.75)),
    p90: round(quantile(ratios, 0.9)),
    max: round(Math.max(...ratios)),
    [`≤ ${coldTargetRatio}×`]: ratios.filter((ratio) => ratio <= coldTargetRatio).length,
  };
}

interface Seed {
  key: string;
  ids: Ids;
  /** The key of an item the bare handler reads. */
  bareKey: { pk: string; sk: string };
}

/**
 * Runs the scenario COLD_RUNS times, each time on a fresh organization (`newSeed`) so every run of a
 * step is the same request on the same state (a repeated create in one pass would change what later
 * steps find), with every request served by a fresh process of its function's bundle. Each measured
 * step is followed by one run of the bare handler; the first pass also times warm requests.
 */
export async function measureLatency(newSeed: () => Promise<Seed>) {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-latency-'));
  try {
    const timed = (operationId: string, index: number) => (COLD_ONLY ? COLD_ONLY.has(operationId) : index % COLD_EVERY === 0);
    const measured = scenario.map((step, index) => ({ step, timed: timed(step.operationId, index), runs: [] as BundleRun[], bareRuns: [] as BundleRun[] }));
    // Every step runs bundled in the first pass, but with BENCH_COLD_ONLY only the timed ones do.
    const bundled = measured.filter((entry) => entry.timed || !COLD_ONLY).map(({ step }) => step);
    const handlers = [...new Set(bundled.map((step) => lambdaInvocation({ method: step.method, url: step.path({}) }).handler))];
    bundleHandlers([floorHandler, wireFloorHandler, ...handlers.filter((h) => !h.includes('unknown-route'))], dir);

    const seeds = [await newSeed()];
    const bare = (warm: number, floor = floorHandler) =>
      runBundle(bundleFile(dir, floor), {
        event: { pathParameters: seeds[0].bareKey, headers: {}, requestContext: { http: { method: 'GET' } } },
        context: { awsRequestId: 'bench' },
      }, { warm, countInstructions: COUNT_INSTRUCTIONS && warm === 0 });
    const bareWarm = median((await bare(WARM_REQUESTS)).warm);
    const wireRuns: BundleRun[] = [];

    for (let pass = 0; pass < COLD_RUNS; pass++) {
      const ids = { ...(seeds[pass] ??= await newSeed()).ids };
      for (const entry of measured) {
        const { step } = entry;
        const body = step.body?.(ids);
        const request = {
          method: step.method,
          url: step.path(ids),
          headers: { authorization: `Bearer ${step.key?.(ids) ?? seeds[pass].key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
        };
        if ((pass > 0 || COLD_ONLY) && !entry.timed) {
          // Only sets up what later steps need: served in this process, from source, to save a process.
          const result = await invoke(request);
          if (result.statusCode === 200 && result.body) step.capture?.(JSON.parse(result.body), ids);
          continue;
        }
        const { handler, ...invocation } = lambdaInvocation(request);
        const counted = COUNT_INSTRUCTIONS && entry.timed;
        const run = await runBundle(bundleFile(dir, handler), invocation, { warm: pass === 0 && !counted ? WARM_REQUESTS : 0, countInstructions: counted });
        if (run.statuses[0] === 200 && run.first.body) step.capture?.(JSON.parse(run.first.body), ids);
        if (!entry.timed) continue;
        entry.runs.push(run);
        entry.bareRuns.push(await bare(0));
      }
      wireRuns.push(await bare(0, wireFloorHandler));
    }

    const rows = measured
      .filter((entry) => entry.timed)
      .map(({ step, runs, bareRuns }) => {
        const cold = median(runs.map((r) => r.coldMs));
        const coldCpu = median(runs.map((r) => r.coldCpuMs));
        const bareCold = median(bareRuns.map((r) => r.coldMs));
        const bareCpu = median(bareRuns.map((r) => r.coldCpuMs));
        const statuses = new Map<number, number>();
        for (const r of runs) statuses.set(r.statuses[0], (statuses.get(r.statuses[0]) ?? 0) + 1);
        return {
          function: step.operationId,
          'cold statuses': [...statuses].map(([status, count]) => (count > 1 ? `${status}×${count}` : status)).join(' '),
          'cold ms': round(cold, 1),
          'bare cold ms': round(bareCold, 1),
          'cold ×bare': round(cold / bareCold),
          'cold CPU ms': round(coldCpu, 1),
          'cold CPU ×bare': round(coldCpu / bareCpu),
          ...(COUNT_INSTRUCTIONS ? instructionColumns(runs, bareRuns, wireRuns) : {}),
          over: cold / bareCold > coldTargetRatio ? 'OVER' : '',
          // Counted runs have no warm requests (each would run under valgrind too).
          ...(COUNT_INSTRUCTIONS ? {} : warmColumns(runs[0].warm, bareWarm)),
        };
      });
    const allBare = measured.flatMap((entry) => entry.bareRuns);
    const bareRow = {
      function: 'bare handler (floor)',
      'cold ms': round(median(allBare.map((r) => r.coldMs)), 1),
      'cold CPU ms': round(median(allBare.map((r) => r.coldCpuMs)), 1),
      ...(COUNT_INSTRUCTIONS ? { 'cold M instructions': round(median(allBare.map((r) => r.coldInstructions!)) / 1e6) } : {}),
      'warm p50 ms': round(bareWarm, 2),
    };
    const wireRow = {
      function: 'bare handler on our client (second floor)',
      'cold ms': round(median(wireRuns.map((r) => r.coldMs)), 1),
      'cold CPU ms': round(median(wireRuns.map((r) => r.coldCpuMs)), 1),
      ...(COUNT_INSTRUCTIONS ? { 'cold M instructions': round(medianInstructions(wireRuns) / 1e6) } : {}),
    };
    printTable(
      `Cold start (fresh Node process: boot + load + first request; median of ${COLD_RUNS} runs, each followed by one of the bare handler) and warm latency (${WARM_REQUESTS} requests)`,
      [...rows, bareRow, wireRow],
    );
    const spread = {
      'cold ×bare': distribution(rows.map((row) => row['cold ×bare'])),
      'cold CPU ×bare': distribution(rows.map((row) => row['cold CPU ×bare'])),
      ...(COUNT_INSTRUCTIONS
        ? {
            'cold instructions ×bare': distribution(rows.map((row) => row['cold instructions ×bare']!)),
            'cold instructions ×our-client floor': distribution(rows.map((row) => row['cold instructions ×our-client floor']!)),
          }
        : {}),
    };
    printTable(
      `Cold start against the bare handler, over ${rows.length} functions (target ≤ ${coldTargetRatio}×)`,
      Object.entries(spread).map(([measure, values]) => ({ measure, ...values })),
    );
    // A run of a few chosen functions is for development; it leaves the full table's results alone.
    if (!COLD_ONLY) saveResults(COUNT_INSTRUCTIONS ? 'latency-instructions' : 'latency', { coldRuns: COLD_RUNS, coldEvery: COLD_EVERY, bare: bareRow, ourClientFloor: wireRow, spread, rows });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
