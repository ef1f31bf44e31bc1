/**
 * Cold start and warm latency of every function, bundled as the stack bundles it (ES modules), each
 * run in a fresh Node process (bench/bundle-runner.mjs) next to the bare handler built the same way:
 * one GetItem with the same SDK and no middleware. Each function's cold start is the median of
 * COLD_RUNS fresh processes, alternated with as many of the bare handler, so a machine that gets
 * busier or quieter during the run moves both sides of the ratio alike.
 *
 * `BENCH_COLD_EVERY=k` measures the cold start of every k-th step only (the other steps still run
 * once, as later steps need the ids they create): a sample while developing on a shared machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFile, bundleHandlers } from '../infra/bundling';
import { lambdaInvocation } from '../infra/local/server';
import { printTable, quantile, round, saveResults, type Row } from './report';
import { runBundle, type BundleRun } from './run-bundle';
import { scenario, type Ids } from './scenarios';

const WARM_REQUESTS = Number(process.env.BENCH_WARM_REQUESTS ?? 30);
const COLD_RUNS = 5;
const COLD_EVERY = Number(process.env.BENCH_COLD_EVERY ?? 1);
/** Every endpoint's cold start should stay within this multiple of the bare handler's. */
export const coldTargetRatio = 1.1;
const floorHandler = 'bench/bare-handler.ts';

const median = (values: number[]) => quantile(values, 0.5);

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

/** Runs the scenario with every request served by fresh processes of its function's bundle. */
export async function measureLatency(seed: { key: string; ids: Ids; bareKey: { pk: string; sk: string } }) {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-latency-'));
  try {
    const handlers = [...new Set(scenario.map((step) => lambdaInvocation({ method: step.method, url: step.path({}) }).handler))];
    bundleHandlers([floorHandler, ...handlers.filter((h) => !h.includes('unknown-route'))], dir);

    const bare = () =>
      runBundle(bundleFile(dir, floorHandler), {
        event: { pathParameters: seed.bareKey, headers: {}, requestContext: { http: { method: 'GET' } } },
        context: { awsRequestId: 'bench' },
      }, { warm: WARM_REQUESTS });
    const bareWarmRuns = [await bare()];
    const allBareCold: BundleRun[] = [];

    const ids = { ...seed.ids };
    const rows: Row[] = [];
    for (const [index, step] of scenario.entries()) {
      const body = step.body?.(ids);
      const { handler, ...invocation } = lambdaInvocation({
        method: step.method,
        url: step.path(ids),
        headers: { authorization: `Bearer ${seed.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
      });
      const run = (warm: number) => runBundle(bundleFile(dir, handler), invocation, { warm });
      const first = await run(WARM_REQUESTS);
      if (first.statuses[0] === 200 && first.first.body) step.capture?.(JSON.parse(first.first.body), ids);
      if (index % COLD_EVERY !== 0) continue;

      // Alternate bare and endpoint runs. A repeated write may answer differently (a 409 for an id
      // already taken, a 404 once deleted): the statuses column shows it.
      const runs = [first];
      const bareRuns: BundleRun[] = [];
      for (let i = 0; i < COLD_RUNS; i++) {
        bareRuns.push(await bare());
        if (i > 0) runs.push(await run(0));
      }
      allBareCold.push(...bareRuns);
      const cold = median(runs.map((r) => r.coldMs));
      const coldCpu = median(runs.map((r) => r.coldCpuMs));
      const bareCold = median(bareRuns.map((r) => r.coldMs));
      const bareCpu = median(bareRuns.map((r) => r.coldCpuMs));
      const warm = median(first.warm);
      const statuses = new Map<number, number>();
      for (const r of runs) statuses.set(r.statuses[0], (statuses.get(r.statuses[0]) ?? 0) + 1);
      rows.push({
        function: step.operationId,
        'cold statuses': [...statuses].map(([status, count]) => (count > 1 ? `${status}×${count}` : status)).join(' '),
        'cold ms': round(cold, 1),
        'bare cold ms': round(bareCold, 1),
        'cold ×bare': round(cold / bareCold),
        'cold CPU ms': round(coldCpu, 1),
        'cold CPU ×bare': round(coldCpu / bareCpu),
        over: cold / bareCold > coldTargetRatio ? 'OVER' : '',
        'warm p50 ms': round(warm, 2),
        'warm p99 ms': round(quantile(first.warm, 0.99), 2),
        'warm ×bare': round(warm / median(bareWarmRuns[0].warm)),
      });
    }
    const bareRow = {
      function: 'bare handler (floor)',
      'cold ms': round(median(allBareCold.map((r) => r.coldMs)), 1),
      'cold CPU ms': round(median(allBareCold.map((r) => r.coldCpuMs)), 1),
      'warm p50 ms': round(median(bareWarmRuns[0].warm), 2),
    };
    printTable(
      `Cold start (fresh Node process: boot + load + first request; median of ${COLD_RUNS}, alternated with ${COLD_RUNS} of the bare handler) and warm latency (${WARM_REQUESTS} requests)`,
      [bareRow, ...rows],
    );
    const spread = {
      'cold ×bare': distribution(rows.map((row) => row['cold ×bare'] as number)),
      'cold CPU ×bare': distribution(rows.map((row) => row['cold CPU ×bare'] as number)),
    };
    printTable(
      `Cold start against the bare handler, over ${rows.length} functions (target ≤ ${coldTargetRatio}×)`,
      Object.entries(spread).map(([measure, values]) => ({ measure, ...values })),
    );
    saveResults('latency', { coldRuns: COLD_RUNS, coldEvery: COLD_EVERY, bare: bareRow, spread, rows });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
