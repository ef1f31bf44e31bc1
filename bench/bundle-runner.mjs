// Runs one bundled Lambda handler in this fresh Node process, as Lambda would: imports the ES module
// bundle (its folder is the task root, where files shipped with it are found), serves the request
// once (cold), then `warm` more times. The handler's own output (log lines) comes first on stdout;
// the last line is the result as JSON: cold time since the process started (boot + load + first
// request), CPU time used by then, warm timings, statuses and the first response.
// Usage: node bundle-runner.mjs <bundle.mjs> <invocation.json> <warm count>
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';

const [bundle, invocationFile, warmCount] = process.argv.slice(2);
const { event, context } = JSON.parse(readFileSync(invocationFile, 'utf8'));
context.getRemainingTimeInMillis = () => 29000;
process.env.LAMBDA_TASK_ROOT = dirname(bundle);

const loadStart = performance.now();
const { handler } = await import(pathToFileURL(bundle).href);
const first = await handler(event, context);
const coldMs = performance.now();
const { user, system } = process.cpuUsage();
const warm = [];
const statuses = [first.statusCode];
for (let i = 0; i < Number(warmCount); i++) {
  const started = performance.now();
  const result = await handler(event, context);
  warm.push(performance.now() - started);
  statuses.push(result.statusCode);
}
const result = { coldMs, coldCpuMs: (user + system) / 1000, loadMs: coldMs - loadStart, warm, statuses, first };
process.stdout.write(`\n${JSON.stringify(result)}\n`);
