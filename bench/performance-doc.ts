/**
 * `npm run docs:performance`: renders docs/performance.md from bench/results/*.json, so the figures
 * the documentation cites are the ones the benches recorded. `npm run bench` runs it at its end;
 * test/unit/performance-doc.test.ts fails when the page differs from what this renders.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const resultsDir = join(__dirname, 'results');
export const performanceDocPath = join(__dirname, '..', 'docs', 'performance.md');

/** Goals set for the service; the measurements are read from the results files. */
const targets = {
  coldRatio: 1.1,
  warmRatio: 1.15,
  loadRatio: 0.8,
  listShareOfAll: 0.05,
  payloadWcuAt10k: 10,
  updatesPerSecond: 100,
  cpuMsPerRequest: 1.5,
  gzipBytesVsUnleash: 1.2,
};

/** Unleash 8 serving its client features on the development machine (issue 14): the reference the payload route was set against. */
const unleash = { plainReqPerSecond: [1024, 1048], notModifiedReqPerSecond: [2064, 2123], cpuMsPerRequest: 1.0 };

type Row = Record<string, any>;
interface Results {
  measuredAt: string;
  machine?: { cpus: number; cpuModel?: string; memoryGiB: number; node: string; platform: string };
  [field: string]: any;
}

const number = (value: number) => value.toLocaleString('en', { maximumFractionDigits: 2 });
const kb = (bytes: number) => `${(bytes / 1024).toLocaleString('en', { maximumFractionDigits: 1, minimumFractionDigits: 1 })} KB`;
const ratio = (value: number) => `${value.toFixed(2)}×`;
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const shortName = (handler: string) => handler.replace(/^functions\//, '').replace(/\.ts$/, '');

/** A Markdown table: one column per [header, cell] pair. */
function table(columns: Array<[string, (row: Row) => unknown]>, rows: Row[]): string {
  const cell = (value: unknown) => (value === undefined || value === null ? '' : String(value)).replace(/\|/g, '\\|');
  return [
    `| ${columns.map(([header]) => header).join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${columns.map(([, value]) => cell(value(row))).join(' | ')} |`),
  ].join('\n');
}

/** The same columns as the results file's rows, in its order. */
const allColumns = (rows: Row[]): Array<[string, (row: Row) => unknown]> =>
  [...new Set(rows.flatMap((row) => Object.keys(row)))].map((key) => [key, (row: Row) => (typeof row[key] === 'number' ? number(row[key]) : row[key])]);

/** The spread of cold-start ratios over the functions, one row per measure. */
const spreadTable = (spread: Row) => {
  const rows = Object.entries(spread).map(([measure, values]) => ({ measure, ...(values as Row) }));
  return table(allColumns(rows), rows);
};

/** When and where a results file was measured, as far as it records it. */
function provenance(file: string, results: Results): string {
  const date = results.measuredAt.slice(0, 10);
  const where = results.machine
    ? `${results.machine.cpus} CPUs${results.machine.cpuModel ? ` (${results.machine.cpuModel})` : ''}, ${results.machine.memoryGiB} GiB, Node ${results.machine.node.replace(/^v/, '')}, ${results.machine.platform}`
    : 'machine not recorded';
  return `_Measured ${date}; ${where}. Source: \`bench/results/${file}.json\`._`;
}

/** Reads every results file the page cites. */
export function readResults(dir = resultsDir): Record<string, Results> {
  const names = [
    'bundle-sizes',
    'latency',
    'latency-instructions',
    'dynamo-cost',
    'features-list',
    'revisions-list',
    'load',
    'ramp-advancer',
    'ramp-monitoring',
    'publish-flows',
    'sdk-payload',
    'snapshot',
  ];
  return Object.fromEntries(
    names.map((name) => {
      const file = join(dir, `${name}.json`);
      if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run bench\` first`);
      return [name, JSON.parse(readFileSync(file, 'utf8')) as Results];
    }),
  );
}

/** Renders docs/performance.md from the results files. */
export function renderPerformanceDoc(results = readResults()): string {
  const bundles = results['bundle-sizes'];
  const latency = results.latency;
  const instructions = results['latency-instructions'];
  const cost = results['dynamo-cost'];
  const list = results['features-list'];
  const load = results.load;
  const ramp = results['ramp-advancer'];
  const payload = results['sdk-payload'];
  const snapshot = results.snapshot;
  const revisions = results['revisions-list'];
  const monitoring = results['ramp-monitoring'];
  const publish = results['publish-flows'];

  // Bundles: functions that carry an analysis-only package run only in the analysis workflow.
  const apiBundles = bundles.sizes.filter((size: Row) => size.analysisOnly.length === 0);
  const analysisBundles = bundles.sizes.filter((size: Row) => size.analysisOnly.length > 0);
  const largestApi = apiBundles[0];
  const largestAny = bundles.sizes[0];

  // DynamoDB cost.
  const atMinimum = cost.rows.filter((row: Row) => row['at minimum'] === 'yes');
  const overMinimum = cost.rows.filter((row: Row) => row['at minimum'] !== 'yes');
  const multiCall = cost.rows.filter((row: Row) => row['round trips'] >= 2 && row['round trips'] <= 5);
  const overlapping = multiCall.filter((row: Row) => row['critical path'] < row['round trips']);
  const sum = (rows: Row[], field: string) => rows.reduce((total, row) => total + row[field], 0);
  const [coldKey, warmKey] = cost.keyRows;

  // Features list.
  const listRow = (prefix: string) => list.rows.find((row: Row) => row.request.startsWith(prefix));
  const page0 = listRow('page at offset 0, limit 10');
  const page9900 = listRow('page at offset 9,900, limit 10');
  const everything = listRow('every feature');

  // Latency.
  const oneCall = new Set(cost.rows.filter((row: Row) => row['round trips'] === 1).map((row: Row) => row.endpoint));
  const warmRows = latency.rows.filter((row: Row) => row['warm ×bare'] !== undefined && row['warm p50 ms'] !== undefined);
  const warmOneCall = warmRows.filter((row: Row) => oneCall.has(row.function));
  const warmMet = warmRows.filter((row: Row) => row['warm ×bare'] <= targets.warmRatio);
  const wall = latency.spread['cold ×bare'];
  const cpu = latency.spread['cold CPU ×bare'];
  const instr = instructions.spread['cold instructions ×bare'];
  const instrOwn = instructions.spread['cold instructions ×our-client floor'];
  const within = `≤ ${targets.coldRatio}×`;

  // Load.
  const [bareLoad, readLoad, writeLoad] = load.rows;

  // SDK payload.
  const serving = (prefix: string) => payload.serving.find((row: Row) => row.scenario.startsWith(prefix));
  const plain = serving('GET payload, plain');
  const notModified = serving('If-None-Match');
  const cachedGzip = serving('PAYLOAD_CACHE_MS=1000: GET');
  const upper = (range: string | number) => Number(String(range).split('–').pop());
  const [bytes] = payload.bytes;
  const at10k = payload.writes.find((row: Row) => row.flags === 10_000);
  const totalCpu = upper(plain['server CPU ms/req']) + upper(plain['DynamoDB Local CPU ms/req']);

  const rampGoal = (index: number) => ramp.goals[index];
  const rampPhases = (goal: Row) => String(goal['measured/s (phases)']);

  const summary: Row[] = [
    {
      what: 'DynamoDB round trips per request',
      target: 'the minimum the request needs',
      measured: `${atMinimum.length} of ${cost.rows.length} scenario steps at their minimum; over: ${overMinimum.map((row: Row) => `\`${row.endpoint}\` ${row['round trips']}/${row.minimum}`).join(', ') || 'none'} (the reason is in its row below)`,
      result: met(overMinimum.length === 0),
    },
    {
      what: 'key reads on a warm request',
      target: 'none',
      measured: `${coldKey['round trips']} round trips with the key not cached, ${warmKey['round trips']} with it cached`,
      result: met(warmKey['round trips'] < coldKey['round trips']),
    },
    {
      what: `\`GET /features\` page at offset 9,900 of ${number(list.count)}`,
      target: `< ${targets.listShareOfAll * 100} % of reading every feature`,
      measured: `${page9900['round trips']} round trips, ${number(page9900.RCU)} RCU (offset 0: ${number(page0.RCU)} RCU); every feature: ${number(everything.RCU)} RCU (${((page9900.RCU / everything.RCU) * 100).toFixed(2)} %)`,
      result: met(page9900.RCU / everything.RCU < targets.listShareOfAll),
    },
    {
      what: 'bundle size',
      target: `no function over ${kb(bundles.maxBytes)}`,
      measured: `largest \`${shortName(largestAny.handler)}\` ${kb(largestAny.bytes)}; largest without analysis packages \`${shortName(largestApi.handler)}\` ${kb(largestApi.bytes)}`,
      result: met(largestAny.bytes <= bundles.maxBytes),
    },
    {
      what: 'cold start, instructions',
      target: `${within} the bare handler`,
      measured: `${instr[within]} of ${instr.functions} functions; median ${ratio(instr.median)}, max ${ratio(instr.max)}`,
      result: met(instr[within] === instr.functions),
    },
    {
      what: 'cold start, CPU time',
      target: `${within} the bare handler`,
      measured: `${cpu[within]} of ${cpu.functions} functions; median ${ratio(cpu.median)}, max ${ratio(cpu.max)}`,
      result: met(cpu[within] === cpu.functions),
    },
    {
      what: 'cold start, wall time',
      target: `${within} the bare handler`,
      measured: `${wall[within]} of ${wall.functions} functions; median ${ratio(wall.median)}, max ${ratio(wall.max)}`,
      result: met(wall[within] === wall.functions),
    },
    {
      what: 'warm latency, requests that need one DynamoDB call',
      target: `≤ ${targets.warmRatio}× the bare handler`,
      measured: `${warmOneCall.filter((row: Row) => row['warm ×bare'] <= targets.warmRatio).length} of ${warmOneCall.length} functions; ${ratio(Math.min(...warmOneCall.map((row: Row) => row['warm ×bare'])))}–${ratio(Math.max(...warmOneCall.map((row: Row) => row['warm ×bare'])))}`,
      result: met(warmOneCall.every((row: Row) => row['warm ×bare'] <= targets.warmRatio)),
    },
    {
      what: 'warm latency, every timed function',
      target: `≤ ${targets.warmRatio}× the bare handler`,
      measured: `${warmMet.length} of ${warmRows.length} functions; max ${ratio(Math.max(...warmRows.map((row: Row) => row['warm ×bare'])))}`,
      result: met(warmMet.length === warmRows.length),
    },
    {
      what: 'local server under load, read',
      target: `≥ ${targets.loadRatio}× a bare GetItem server, no errors`,
      measured: `${number(readLoad['req/s'])} req/s, ${ratio(readLoad['vs bare'])}, ${readLoad.errors} errors`,
      result: met(readLoad['vs bare'] >= targets.loadRatio && readLoad.errors === 0 && readLoad['non-2xx'] === 0),
    },
    ...[0, 1].map((index) => ({
      what: `ramp advancer, ${rampGoal(index).goal}`,
      target: `${rampGoal(index).target} in every phase`,
      measured: `${rampPhases(rampGoal(index))} schedules/s; DynamoDB Local alone ${rampGoal(index)['DynamoDB Local alone/s (phases)']}/s`,
      result: met(rampGoal(index).met === 'yes'),
    })),
    {
      what: 'SDK payload writes at 10,000 flags',
      target: `≤ ${targets.payloadWcuAt10k} payload WCU per change`,
      measured: `${number(at10k['payload WCU per change'])} WCU (the former single gzip item: ${number(at10k['former design: payload WCU per change'])})`,
      result: met(at10k['payload WCU per change'] <= targets.payloadWcuAt10k),
    },
    ...(
      [
        ['concurrent flag updates', payload.contention],
        ['concurrent payload-reference writes', payload.references],
      ] as const
    ).map(([what, rows]) => ({
      what,
      target: `≥ ${targets.updatesPerSecond}/s, none failed`,
      measured: rows.map((row: Row) => `${number(row['updates/s'])}/s with ${row['concurrent writers']} writers`).join(', '),
      result: met(rows.every((row: Row) => row['updates/s'] >= targets.updatesPerSecond && row['failed (reached the client)'] === 0)),
    })),
    {
      what: 'SDK payload, plain GET',
      target: `≥ 0.9× Unleash (${number(unleash.plainReqPerSecond[1])} req/s)`,
      measured: `${number(plain['req/s'])} req/s, ${ratio(plain['req/s'] / unleash.plainReqPerSecond[1])}`,
      result: met(plain['req/s'] >= 0.9 * unleash.plainReqPerSecond[1]),
    },
    {
      what: 'SDK payload, CPU per request',
      target: `≤ ${targets.cpuMsPerRequest} ms, server and DynamoDB Local together (Unleash: ${unleash.cpuMsPerRequest} ms with its database)`,
      measured: `at most ${number(totalCpu)} ms (server ${plain['server CPU ms/req']} ms, DynamoDB Local ${plain['DynamoDB Local CPU ms/req']} ms)`,
      result: met(totalCpu <= targets.cpuMsPerRequest),
    },
    {
      what: 'SDK payload, gzip bytes',
      target: `≤ ${targets.gzipBytesVsUnleash}× Unleash (${number(bytes['reference: Unleash gzip bytes (issue 14)'])} B)`,
      measured: `${number(bytes['gzip bytes'])} B`,
      result: met(bytes['gzip bytes'] <= targets.gzipBytesVsUnleash * bytes['reference: Unleash gzip bytes (issue 14)']),
    },
    {
      what: 'SDK payload with `PAYLOAD_CACHE_MS=1000`',
      target: '≥ 2× Unleash plain',
      measured: `${number(cachedGzip['req/s'])} req/s (gzip), ${ratio(cachedGzip['req/s'] / unleash.plainReqPerSecond[1])}`,
      result: met(cachedGzip['req/s'] >= 2 * unleash.plainReqPerSecond[1]),
    },
    {
      what: 'SDK payload, 304',
      target: '≥ 2× the plain GET (as Unleash)',
      measured: `${number(notModified['req/s'])} req/s, ${ratio(notModified['req/s'] / plain['req/s'])} the plain GET`,
      result: met(notModified['req/s'] >= 2 * plain['req/s']),
    },
  ];

  const unrecorded = Object.values(results).some((result) => !result.machine);

  return `<!-- Generated by \`npm run docs:performance\` (bench/performance-doc.ts) from bench/results/*.json. Do not edit by hand. -->

# Performance and cost

Every figure on this page comes from the results files of \`npm run bench\`, rendered by
\`npm run docs:performance\`. The bench starts its own DynamoDB Local, runs every benchmark, writes
\`bench/results/*.json\` and then regenerates this page. \`npm run bench -- cost latency\` runs only some
benchmarks: \`bundles\`, \`cost\`, \`latency\`, \`features\`, \`revisions\`, \`ramp\`, \`load\`, \`payload\`, \`snapshot\`,
\`publish\`, \`monitoring\`.

The benches run DynamoDB Local on the same machine, over loopback. So latencies are local ones, not AWS's.
Round trips and capacity units are DynamoDB's own accounting (\`ReturnConsumedCapacity\`), which DynamoDB
Local computes by AWS's formulas.${unrecorded ? `

Results files written before the bench recorded its machine say "machine not recorded". Those runs were made
on the development machine: 2 cores, 24 GiB, Node 20, DynamoDB Local on Java 17.` : ''}

## Targets

${table(
  [
    ['what', (row) => row.what],
    ['target', (row) => row.target],
    ['measured', (row) => row.measured],
    ['result', (row) => row.result],
  ],
  summary,
)}

## Bundle sizes

Each function is bundled as the stack bundles it: ES modules, minified, the AWS SDK included. The floor is
\`${bundles.floorHandler}\`, a bare GetItem handler on the AWS SDK's client, built the same way. The limit is
the size of that floor as it was built before, in CommonJS. \`npx tsx bench/bundle-sizes.ts\` prints this table alone.

${provenance('bundle-sizes', bundles)}

- Floor: ${kb(bundles.floorBytes)}. Limit: ${kb(bundles.maxBytes)}.
- ${bundles.sizes.length} functions. ${apiBundles.length} carry no analysis-only package: median ${kb(median(apiBundles.map((size: Row) => size.bytes)))}, largest ${kb(largestApi.bytes)}.
- Analysis-only packages (DuckDB, \`@stdlib\`, the Athena client) are found only in: ${analysisBundles.map((size: Row) => `\`${shortName(size.handler)}\``).join(', ') || 'no function'}.

The ${Math.min(10, bundles.sizes.length)} largest bundles:

${table(
  [
    ['function', (row) => `\`${shortName(row.handler)}\``],
    ['minified', (row) => kb(row.bytes)],
    ['× floor', (row) => ratio(row.ratio)],
    ['largest additions over the floor', (row) => row.largestAdditions.join(', ')],
    ['shipped next to it', (row) => row.shipped.join(', ')],
  ],
  bundles.sizes.slice(0, 10),
)}

<details><summary>Every function</summary>

${table(
  [
    ['function', (row) => `\`${shortName(row.handler)}\``],
    ['minified', (row) => kb(row.bytes)],
    ['× floor', (row) => ratio(row.ratio)],
    ['analysis-only packages', (row) => row.analysisOnly.length || ''],
  ],
  bundles.sizes,
)}

</details>

## Cold start and warm latency

A cold start is a fresh Node process that boots, loads the function's bundle and serves a first request.
Each function's figure is the median of ${latency.coldRuns} runs. Each run is followed by one run of the bare
handler (one GetItem on the AWS SDK's client, no middleware), so a machine that gets busier or quieter moves both
sides of the ratio alike. A second floor does the same GetItem on our own DynamoDB client. Every
${latency.coldEvery === 1 ? '' : `${latency.coldEvery}th `}scenario step is timed. On a machine shared with other work, wall-time ratios vary between runs;
the CPU-time ratio is steadier. Warm latency is the median of the
requests that follow the first one in the same process.

${provenance('latency', latency)}

- Floor (AWS SDK client): cold ${number(latency.bare['cold ms'])} ms, cold CPU ${number(latency.bare['cold CPU ms'])} ms, warm p50 ${number(latency.bare['warm p50 ms'])} ms.
- Second floor (our client): cold ${number(latency.ourClientFloor['cold ms'])} ms, cold CPU ${number(latency.ourClientFloor['cold CPU ms'])} ms.

${spreadTable(latency.spread)}

${table(
  [
    ['function', (row) => `\`${row.function}\``],
    ['cold ms', (row) => number(row['cold ms'])],
    ['× bare', (row) => ratio(row['cold ×bare'])],
    ['cold CPU ms', (row) => number(row['cold CPU ms'])],
    ['CPU × bare', (row) => ratio(row['cold CPU ×bare'])],
    ['warm p50 ms', (row) => number(row['warm p50 ms'])],
    ['warm p99 ms', (row) => number(row['warm p99 ms'])],
    ['warm × bare', (row) => ratio(row['warm ×bare'])],
  ],
  latency.rows,
)}

### Instructions

Time on a busy, shared machine varies by tens of percent between runs. An instruction count hardly moves, so it
can show a change of a few percent. \`BENCH_COLD_INSTRUCTIONS=1\` counts the instructions of each cold process and
of its bare run under valgrind. It is about 40 times slower, so use it with \`BENCH_COLD_RUNS=1\` and
\`BENCH_COLD_EVERY\`. Its results go to \`bench/results/latency-instructions.json\`; warm requests are not timed then.

${provenance('latency-instructions', instructions)}

${spreadTable(instructions.spread)}

- Floor (AWS SDK client): ${number(instructions.bare['cold M instructions'])} M instructions. Second floor (our client): ${number(instructions.ourClientFloor['cold M instructions'])} M.
- Median function: ${number(median(instructions.rows.map((row: Row) => row['cold M instructions'])))} M.
- Against our client's floor: median ${ratio(instrOwn.median)}, max ${ratio(instrOwn.max)}, ${instrOwn[within]} of ${instrOwn.functions} ${within}. That is the cost of our own code (its import and a first request's extra calls) over a minimal handler.

${table(
  [
    ['function', (row) => `\`${row.function}\``],
    ['M instructions', (row) => number(row['cold M instructions'])],
    ['× bare', (row) => ratio(row['cold instructions ×bare'])],
    ['× our-client floor', (row) => ratio(row['cold instructions ×our-client floor'])],
  ],
  instructions.rows,
)}

### Running it

- \`BENCH_COLD_EVERY=k\` times every k-th step only.
- \`BENCH_COLD_ONLY=postFeature,listFeatures\` times only those operations; the results file is then left alone.
- \`BENCH_COLD_RUNS\` sets the number of runs; \`BENCH_WARM_REQUESTS\` the number of warm requests.
- \`BENCH_CPU_PROF=<dir>\` writes a V8 CPU profile of every bundle run under \`<dir>/<function>/\` (open it in Chrome DevTools).

## DynamoDB cost per request

One representative request per endpoint, with the key cached as in a warm container. "Round trips" counts
DynamoDB calls. "Critical path" counts the longest chain of calls each sent after the last one was answered:
calls sent together count once. "Minimum" is what the request needs, with the reason. "ms" is the request
served warm in the bench's own process, one run.

${provenance('dynamo-cost', cost)}

- ${atMinimum.length} of ${cost.rows.length} steps are at their minimum.
- The ${multiCall.length} requests with 2–5 calls make ${sum(multiCall, 'round trips')} calls, ${sum(multiCall, 'critical path')} of them on critical paths. ${overlapping.length} of these requests send some calls side by side. The rest read, then write or read again with what the first call found.

${table(
  [
    ['endpoint', (row) => `\`${row.endpoint}\``],
    ['round trips', (row) => row['round trips']],
    ['critical path', (row) => row['critical path']],
    ['minimum', (row) => row.minimum],
    ['RCU', (row) => number(row.RCU)],
    ['WCU', (row) => number(row.WCU)],
    ['ms', (row) => number(row.ms)],
    ['why', (row) => (row['at minimum'] === 'yes' ? row.why : `**${row['at minimum']}**: ${row.why}`)],
  ],
  cost.rows,
)}

Resolving the key: it is read once per container and \`AUTH_CACHE_TTL_SECONDS\`, never on a warm request.

${table(allColumns(cost.keyRows), cost.keyRows)}

## Listing features

\`GET /features\` in an organization with ${number(list.count)} features of about 1 KB each. Units are those of the
whole request, the key lookup excluded. The page index keeps a page deep in the list as cheap as the first one.
\`npx tsx bench/features-list.ts\` runs it alone.

${provenance('features-list', list)}

${table(allColumns(list.rows), list.rows)}

## Local server under load

The local server under ${load.connections} connections for ${load.durationSeconds} s each, over loopback, next to a
bare server that does one GetItem per request on the AWS SDK's client. Every \`POST\` creates a new saved group.

${provenance('load', load)}

${table(allColumns(load.rows), load.rows)}

The write is slower than the read because every saved-group write also bumps a payload references version in its transaction (see [SDK payload](sdk-payload.md#how-the-sdk-payload-is-stored-and-served)).

## Ramp advancer

One advancer moves ${number(ramp.schedules)} due schedules on, each on its own feature, in one organization and
spread over 20. It runs every phase of their life: start (capture and step 1), a next step, and complete (folded
steps, rule locks freed). Batch size 1 is the former one-by-one advancer, for comparison. The advancer runs
${ramp.concurrency} batches at once, and reads each batch's schedules and features in one BatchGet. The bench starts a DynamoDB Local of its own with the JVM's full JIT
(\`${ramp.javaOptions}\`), as DynamoDB Local ships.

"DynamoDB Local alone" replays each phase's largest batch transaction on copies of its items, with no code of
ours and no reads: it is the ceiling the store itself sets on this machine. DynamoDB Local runs one write at a
time per table (a table lock and one SQLite thread), so more batches in flight only keep it busy while others are
read and prepared. \`BENCH_RAMP_JAVA_OPTIONS\`, \`BENCH_RAMP_CONCURRENCY\` and \`BENCH_RAMP_BATCH_SIZES\` change the
set-up; \`npm run bench -- ramp\` or \`npx tsx bench/ramp-advancer.ts\` runs it alone.

${provenance('ramp-advancer', ramp)}

${table(allColumns(ramp.rows), ramp.rows)}

${table(allColumns(ramp.goals), ramp.goals)}

## SDK payload

\`npm run bench -- payload\` (or \`npx tsx bench/sdk-payload.ts\`; \`BENCH_PAYLOAD_PARTS=serving\` runs only some parts).

${provenance('sdk-payload', payload)}

### Writes

One flag's default value changed in one environment, at 100, 1,000 and 10,000 flags, next to what the former
design (one gzip item per environment, rewritten on every change) wrote.

${table(allColumns(payload.writes), payload.writes)}

### Concurrent writes in one organization

Distinct flags updated at once (1,000 flags): the payload version shards are the only items they share.

${table(allColumns(payload.contention), payload.contention)}

Distinct saved groups updated at once: each bumps one of the organization's 16 references versions in its transaction.

${table(allColumns(payload.references), payload.references)}

### Serving

100 flags, each with a targeted rule and a 30 % rollout; ${payload.connections} connections over loopback. Every
scenario runs once per round next to the bare GetItem server, ${payload.rounds} rounds of ${payload.loadSeconds} s
(the first after ${payload.warmupSeconds} s of warm-up). The table shows medians, and ranges over the rounds for
the ratio and the CPU per request. A warm request is one Query of the version items (1 RCU); an unchanged
version proves the cached body current. A 304 costs the same Query as a plain GET, so it is not much faster.
With \`PAYLOAD_CACHE_MS=1000\` a recently checked body is served without any DynamoDB call. The reference is
Unleash 8 on the same machine (issue 14): ${number(unleash.plainReqPerSecond[0])}–${number(unleash.plainReqPerSecond[1])} req/s plain,
${number(unleash.notModifiedReqPerSecond[0])}–${number(unleash.notModifiedReqPerSecond[1])} req/s for a 304, ${unleash.cpuMsPerRequest} ms of CPU per request with its database.

${table(allColumns(payload.serving), payload.serving)}

${table(allColumns(payload.bytes), payload.bytes)}

## Experiment snapshot on DuckDB

One experiment with 5 metrics on one fact table (proportion, capped mean with CUPED, count, ratio, distinct days),
over N exposure rows and 2N events generated as Parquet. Switchyard's snapshot end to end (SQL built, run in the
DuckDB process, every metric analysed) runs next to a hand-written DuckDB query of the same aggregates, in the same
kind of process; the bench checks they agree. Each side runs 3 times, alternating, and the fastest counts (once at
10M). The table gives wall time, CPU time of the DuckDB process, peak resident memory, and the ratios. On a shared
machine, the CPU ratio is the steadier one. \`npm run bench\` runs 100k and 1M;
\`BENCH_SNAPSHOT_SIZES=100000,1000000,10000000 npm run bench -- snapshot\` adds 10M.

${provenance('snapshot', snapshot)}

${table(allColumns(snapshot.rows), snapshot.rows)}

## Revision lists

${number(revisions.count)} feature revisions in one organization; each request is one page of \`GET /api/v2/feature-revisions\`
or \`GET /api/v1/revisions\`. A page costs the same at any offset: it reads the revision list's page index, the keys
written since it was last extended, at most one stride of keys from the nearest mark, and the page's items.
\`npx tsx bench/revisions-list.ts\` runs it alone.

${provenance('revisions-list', revisions)}

${table(allColumns(revisions.rows), revisions.rows)}

## Publishing drafts

A publish's cost (median of 5): the draft published by hand, a scheduled publish armed and fired, and releases of
several drafts in one transaction. DynamoDB Local reports about 6 write units for any transaction, so "WCU (priced)"
is computed the way DynamoDB charges a transaction: 2 per item per started KB.

${provenance('publish-flows', publish)}

${table(allColumns(publish.rows), publish.rows)}

## Monitored ramps

One monitoring evaluation at 1M exposure rows (start the snapshot, run it on DuckDB, judge and apply the verdict),
and the scheduler with 100 monitored ramps due at once.

${provenance('ramp-monitoring', monitoring)}

${table(allColumns(monitoring.evaluations), monitoring.evaluations)}

${table(allColumns(monitoring.scheduler), monitoring.scheduler)}
`;
}

/** Writes docs/performance.md; returns its path. */
export function writePerformanceDoc(): string {
  writeFileSync(performanceDocPath, renderPerformanceDoc());
  return performanceDocPath;
}

if (require.main === module) {
  console.log(`wrote ${writePerformanceDoc()}`);
}
