// Runs one bundled Lambda handler in this fresh Node process, as Lambda would: loads the bundle,
// serves the request once (cold), then `warm` more times. Prints timings as JSON on stdout.
// Usage: node bundle-runner.cjs <bundle.js> <invocation.json> <warm count>
const { performance } = require('node:perf_hooks');
const { readFileSync } = require('node:fs');

async function main() {
  const [bundle, invocationFile, warmCount] = process.argv.slice(2);
  const { event, context } = JSON.parse(readFileSync(invocationFile, 'utf8'));
  context.getRemainingTimeInMillis = () => 29000;
  const loadStart = performance.now();
  const { handler } = require(bundle);
  const first = await handler(event, context);
  const coldMs = performance.now(); // since this process started: boot + load + first request
  const warm = [];
  const statuses = [first.statusCode];
  for (let i = 0; i < Number(warmCount); i++) {
    const started = performance.now();
    const result = await handler(event, context);
    warm.push(performance.now() - started);
    statuses.push(result.statusCode);
  }
  process.stdout.write(JSON.stringify({ coldMs, loadMs: coldMs - loadStart, warm, statuses, firstBody: first.body }));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack));
  process.exit(1);
});
