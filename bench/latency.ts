/**
 * Cold start and warm latency of every function, bundled as the stack bundles it, each in a fresh
 * Node process (bench/bundle-runner.cjs), next to the bare handler: one GetItem with the same
 * SDK and no middleware.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleHandlers } from '../infra/bundling';
import { lambdaInvocation } from '../infra/local/server';
import { quantile, printTable, round, saveResults, type Row } from './report';
import { scenario, type Ids } from './scenarios';

const run = promisify(execFile);
const WARM_REQUESTS = Number(process.env.BENCH_WARM_REQUESTS ?? 30);
const COLD_SAMPLES = 3;
const floorHandler = 'bench/bare-handler.ts';

interface Timing {
  coldMs: number;
  warm: number[];
  statuses: number[];
  firstBody?: string;
}

async function runBundle(dir: string, handler: string, invocation: unknown): Promise<Timing> {
  const file = join(dir, `invocation-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(invocation));
  const bundle = join(dir, handler.replace(/\.ts$/, ''), 'index.js');
  const { stdout } = await run(process.execPath, [join(__dirname, 'bundle-runner.cjs'), bundle, file, String(WARM_REQUESTS)], {
    env: { ...process.env, NODE_OPTIONS: '' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout);
}

const median = (values: number[]) => quantile(values, 0.5);

/** Runs the scenario with every request served by a fresh process of its function's bundle. */
export async function measureLatency(seed: { key: string; ids: Ids; bareKey: { pk: string; sk: string } }) {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-latency-'));
  try {
    const handlers = [...new Set(scenario.map((step) => lambdaInvocation({ method: step.method, url: step.path({}) }).handler))];
    bundleHandlers([floorHandler, ...handlers.filter((h) => !h.includes('unknown-route'))], dir);

    const bareInvocation = {
      event: { pathParameters: seed.bareKey, headers: {}, requestContext: { http: { method: 'GET' } } },
      context: { awsRequestId: 'bench' },
    };
    const bareRuns: Timing[] = [];
    for (let i = 0; i < 5; i++) bareRuns.push(await runBundle(dir, floorHandler, bareInvocation));
    const bareCold = median(bareRuns.map((t) => t.coldMs));
    const bareWarm = median(bareRuns.flatMap((t) => t.warm));

    const ids = { ...seed.ids };
    const rows: Row[] = [];
    for (const step of scenario) {
      const body = step.body?.(ids);
      const invocation = lambdaInvocation({
        method: step.method,
        url: step.path(ids),
        headers: { authorization: `Bearer ${seed.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
      });
      const samples = [await runBundle(dir, invocation.handler, invocation)];
      const first = samples[0];
      if (first.statuses[0] === 200 && first.firstBody) step.capture?.(JSON.parse(first.firstBody), ids);
      if (step.method === 'GET') {
        for (let i = 1; i < COLD_SAMPLES; i++) samples.push(await runBundle(dir, invocation.handler, invocation));
      }
      const cold = median(samples.map((t) => t.coldMs));
      const warm = median(first.warm);
      rows.push({
        function: step.operationId,
        'first status': first.statuses[0],
        'cold ms': round(cold, 1),
        'cold ×bare': round(cold / bareCold),
        'warm p50 ms': round(warm, 2),
        'warm p99 ms': round(quantile(first.warm, 0.99), 2),
        'warm ×bare': round(warm / bareWarm),
      });
    }
    const bareRow = { function: 'bare handler (floor)', 'cold ms': round(bareCold, 1), 'warm p50 ms': round(bareWarm, 2) };
    printTable(
      `Cold start (fresh Node process: boot + load + first request) and warm latency (${WARM_REQUESTS} requests), against the bare handler`,
      [bareRow, ...rows],
    );
    saveResults('latency', { bare: bareRow, rows });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
