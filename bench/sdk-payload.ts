/**
 * `npx tsx bench/sdk-payload.ts` (or `npm run bench -- payload`): the SDK payload's storage and serving.
 * - Writes: the payload state one flag change writes, at 100, 1,000 and 10,000 flags, next to what
 *   the former design (one gzip item per environment, rewritten by every change) would write; and
 *   concurrent flag updates per second in one organization.
 * - Serving: throughput, latency and server CPU per request for a plain GET, a gzip GET and a 304,
 *   fresh on every request and with PAYLOAD_CACHE_MS=1000, next to a bare GetItem server measured in
 *   the same round (BENCH_SERVE_ROUNDS rounds, 3 by default).
 * - Bytes: the payload raw, gzip and br.
 * Uses DYNAMODB_ENDPOINT when set, else starts its own DynamoDB Local.
 */
import type { StoredFeature } from '../shared/domain/features';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { startServer } from './load';
import { printTable, quantile, round, saveResults, type Row } from './report';

const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 5);
/**
 * Load before each measurement. A server keeps compiling hot code for thousands of requests after
 * start: after 2 s of load, V8's compiler threads still took about a fifth of the server's CPU; after 6 s, 2 to 4 %.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 3);
const CONNECTIONS = 10;
const UPDATES_MEASURED = 20;

/** The setup: every flag has a targeted rule and a 30 % rollout. */
async function flagContent(id: string) {
  const { ruleInput } = await import('../shared/contracts/features');
  const { newFeature } = await import('../shared/domain/features');
  const rules = [
    ruleInput.parse({ type: 'force', value: 'true', condition: JSON.stringify({ country: { $in: ['NL', 'BE'] }, plan: 'pro' }) }),
    ruleInput.parse({ type: 'rollout', value: 'true', coverage: 0.3, hashAttribute: 'id' }),
  ];
  return newFeature(
    { id, valueType: 'boolean', defaultValue: 'false', environments: { production: { enabled: true, rules } } },
    { environments: ['production', 'dev'], owner: { owner: '' } },
  );
}

/** `count` flags written straight to the table (feature and payload entry items, 25 per BatchWrite): seeding 10,000 through the API would take minutes. */
async function seedFlags(orgId: string, count: number): Promise<void> {
  const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db, tableName } = await import('../shared/db/client');
  const { features } = await import('../shared/store/features');
  const { preparePayloadChanges } = await import('../shared/payload/write');
  const items: Record<string, unknown>[] = [];
  for (let n = 0; n < count; n++) {
    const content = await flagContent(`flag-${String(n).padStart(5, '0')}`);
    const created = features.prepareCreate(orgId, { ...content, revision: { version: 1, comment: '', date: '', createdBy: 'bench', publishedBy: 'bench' } });
    items.push(created.op.Put!.Item!);
    for (const { op } of preparePayloadChanges(orgId, [{ id: content.id, after: created.entity }])) if (op.Put) items.push(op.Put.Item!);
  }
  const batches: Record<string, unknown>[][] = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let request: Record<string, unknown[]> | undefined = { [tableName()]: batch.map((Item) => ({ PutRequest: { Item } })) };
      while (request && Object.keys(request).length) {
        const result = await db.batchWrite({ RequestItems: request as never });
        request = result.UnprocessedItems as typeof request;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** Transactional writes cost 2 WCU per started KB of each item written. */
const transactionalWcu = (item: unknown) => 2 * Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(item)) / 1024));

/** A flag change as the features use case writes it (read, change, one transaction; a lost race read again), without the request around it. */
async function changeFlag(orgId: string, id: string, edit: (current: StoredFeature) => StoredFeature): Promise<void> {
  const { retryOnConflict } = await import('../shared/db/optimistic');
  const { features, readEnvironmentParents, writeFeatureChanges } = await import('../shared/store/features');
  await retryOnConflict(async () => {
    const [current, parents] = await Promise.all([features.read(orgId, id), readEnvironmentParents(orgId)]);
    await writeFeatureChanges(orgId, [{ current: current!, next: edit(current!.entity), author: { by: 'bench', comment: '' } }], { parents });
  });
}

async function writeCost(): Promise<Row[]> {
  const { dynamoMeter, watchCommands } = await import('../shared/db/client');
  const { createOrganization } = await import('../shared/store/organizations');
  const { features } = await import('../shared/store/features');
  const { payloadEntry } = await import('../shared/payload/entries');
  let payloadUnits = 0;
  let payloadItems = 0;
  const unwatch = watchCommands((command, input) => {
    if (command !== 'TransactWriteItemsCommand') return;
    for (const item of (input as { TransactItems: Array<Record<string, any>> }).TransactItems) {
      const key = item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key;
      if (!/^SDK_(ENTRY|VERSION)#/.test(key?.SK ?? '')) continue;
      payloadItems += 1;
      // An ADD to a version item writes the whole small item (keys, version, date, type).
      payloadUnits += transactionalWcu(item.Put?.Item ?? { ...item.Update?.Key, version: 0, dateUpdated: new Date().toISOString(), entityType: 'SDK_VERSION' });
    }
  });
  const rows: Row[] = [];
  for (const count of [100, 1_000, 10_000]) {
    const { id: orgId } = await createOrganization(`Payload writes ${count}`);
    await seedFlags(orgId, count);
    const all = await features.getMany(orgId, Array.from({ length: count }, (_, n) => `flag-${String(n).padStart(5, '0')}`));
    const formerItemBytes = gzipSync(JSON.stringify({ entries: Object.fromEntries(all.map((f) => [f.id, payloadEntry(f, 'production')])) })).length;
    dynamoMeter.reset();
    payloadUnits = 0;
    payloadItems = 0;
    for (let n = 0; n < UPDATES_MEASURED; n++) {
      const id = `flag-${String((n * 37) % count).padStart(5, '0')}`;
      await changeFlag(orgId, id, (current) => ({ ...current, defaultValue: current.defaultValue === 'true' ? 'false' : 'true' }));
    }
    const used = dynamoMeter.snapshot();
    rows.push({
      flags: count,
      'payload items written per change': round(payloadItems / UPDATES_MEASURED, 1),
      'payload WCU per change': round(payloadUnits / UPDATES_MEASURED, 1),
      'whole change WCU (feature, revision, payload)': round(used.writeUnits / UPDATES_MEASURED, 1),
      'round trips per change': round(used.calls / UPDATES_MEASURED, 1),
      'former design: gzip item KB': round(formerItemBytes / 1024, 1),
      'former design: payload WCU per change': 2 * Math.ceil(formerItemBytes / 1024),
    });
  }
  unwatch();
  printTable("SDK payload writes: one flag's default value changed, one environment (target ≤ 10 payload WCU at 10,000 flags)", rows);
  return rows;
}

/** Concurrent updates of distinct flags in one organization: the version shards are the only shared items. */
async function concurrentUpdates(): Promise<Row[]> {
  const { watchCommands } = await import('../shared/db/client');
  const { createOrganization } = await import('../shared/store/organizations');
  const { id: orgId } = await createOrganization('Payload contention');
  await seedFlags(orgId, 1_000);
  let transactions = 0;
  let lost = 0;
  const unwatch = watchCommands((command) => {
    if (command !== 'TransactWriteItemsCommand') return;
    transactions += 1;
    return (error) => {
      if (error) lost += 1;
    };
  });
  const rows: Row[] = [];
  for (const concurrency of [10, 40]) {
    transactions = 0;
    lost = 0;
    const total = 600;
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let n = next++; n < total; n = next++) {
          const id = `flag-${String((n * 7) % 1000).padStart(5, '0')}`;
          await changeFlag(orgId, id, (current) => ({ ...current, description: `change ${n}` })).catch(() => {
            failed += 1;
          });
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    rows.push({
      'concurrent writers': concurrency,
      updates: total,
      'updates/s': round(total / seconds, 0),
      'transactions lost to a race (retried)': lost,
      'lost per update': round(lost / total, 3),
      'failed (reached the client)': failed,
    });
  }
  printTable('Concurrent flag updates in one organization, 1,000 flags, in-process (target ≥ 100 updates/s, none failed)', rows);
  unwatch();
  return rows;
}

/**
 * Concurrent updates of distinct saved groups in one organization: every one also bumps the
 * organization's one references version in its transaction, so this measures that item's contention.
 */
async function concurrentReferenceWrites(): Promise<Row[]> {
  const { watchCommands } = await import('../shared/db/client');
  const { createOrganization } = await import('../shared/store/organizations');
  const { savedGroups } = await import('../shared/store/saved-groups');
  const { id: orgId } = await createOrganization('References contention');
  const groups = 200;
  for (let n = 0; n < groups; n++) await savedGroups.create(orgId, { id: `grp_${n}`, name: `Group ${n}`, type: 'list', attributeKey: 'id', values: [] });
  let lost = 0;
  const unwatch = watchCommands((command) => {
    if (command !== 'TransactWriteItemsCommand') return;
    return (error) => {
      if (error) lost += 1;
    };
  });
  const rows: Row[] = [];
  for (const concurrency of [10, 40]) {
    lost = 0;
    const total = 400;
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let n = next++; n < total; n = next++) {
          await savedGroups.update(orgId, `grp_${(n * 7) % groups}`, (current) => ({ ...current, values: [`v${n}`] })).catch(() => {
            failed += 1;
          });
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    rows.push({
      'concurrent writers': concurrency,
      updates: total,
      'updates/s': round(total / seconds, 0),
      'transactions lost to a race (retried)': lost,
      'lost per update': round(lost / total, 3),
      'failed (reached the client)': failed,
    });
  }
  printTable('Concurrent saved-group updates in one organization: each bumps the one references version (target ≥ 100/s, none failed)', rows);
  unwatch();
  return rows;
}

/** CPU seconds a process has used so far (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  serverCpu: number;
  dynamoCpu?: number;
  bytes: number;
  failed: number;
  errors: number;
}

async function hammer(options: autocannon.Options, pids: { server: number; dynamo?: number }, warmupSeconds: number): Promise<Measured> {
  await autocannon({ ...options, duration: warmupSeconds, connections: CONNECTIONS });
  const before = { server: cpuSeconds(pids.server), dynamo: pids.dynamo ? cpuSeconds(pids.dynamo) : 0 };
  const result = await autocannon({ ...options, duration: LOAD_SECONDS, connections: CONNECTIONS });
  const requests = Math.max(1, result.requests.total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    serverCpu: ((cpuSeconds(pids.server) - before.server) * 1000) / requests,
    dynamoCpu: pids.dynamo ? ((cpuSeconds(pids.dynamo) - before.dynamo) * 1000) / requests : undefined,
    bytes: result.throughput.total / requests,
    failed: result.non2xx - (options.headers?.['if-none-match'] ? result.requests.total : 0),
    errors: result.errors + result.timeouts,
  };
}

const median = (values: number[]) => quantile(values, 0.5);
const span = (values: number[], digits: number) => {
  const [low, high] = [Math.min(...values), Math.max(...values)].map((value) => round(value, digits));
  return low === high ? String(low) : `${low}–${high}`;
};

/**
 * Every scenario once per round, next to the bare server in the same round: the machine's load moves
 * within seconds, so each ratio compares measurements taken a few seconds apart. A row shows the
 * median of the rounds and, for ratios and CPU, their range.
 */
async function measureRounds(scenarios: Array<{ title: string; options: autocannon.Options; pids: { server: number; dynamo?: number } }>): Promise<Row[]> {
  const runs = scenarios.map(() => [] as Measured[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, scenario] of scenarios.entries()) {
      // The first round warms each scenario up for long; later ones only reconnect.
      runs[index].push(await hammer(scenario.options, scenario.pids, round === 0 ? WARMUP_SECONDS : 1));
    }
  }
  return scenarios.map((scenario, index) => {
    const measured = runs[index];
    const ratios = measured.map((run, round) => run.rps / runs[0][round].rps);
    const dynamo = measured.flatMap((run) => (run.dynamoCpu === undefined ? [] : [run.dynamoCpu]));
    return {
      scenario: scenario.title,
      'req/s': round(median(measured.map((run) => run.rps)), 0),
      'vs bare (same round)': index === 0 ? 1 : span(ratios, 2),
      'p50 ms': median(measured.map((run) => run.p50)),
      'p99 ms': median(measured.map((run) => run.p99)),
      'server CPU ms/req': span(measured.map((run) => run.serverCpu), 2),
      'DynamoDB Local CPU ms/req': dynamo.length ? span(dynamo, 2) : '',
      'bytes/resp': round(median(measured.map((run) => run.bytes)), 0),
      'non-2xx/304': measured.reduce((sum, run) => sum + run.failed, 0),
      errors: measured.reduce((sum, run) => sum + run.errors, 0),
    };
  });
}

async function serving(dynamoPid: number | undefined): Promise<{ rows: Row[]; bytes: Row[] }> {
  const { createOrganization } = await import('../shared/store/organizations');
  const { createSdkConnection, newSdkConnection } = await import('../shared/store/sdk-connections');
  const { writeFeatureChanges } = await import('../shared/store/features');
  const { keys } = await import('../shared/db/keys');
  const { id: orgId } = await createOrganization('Payload serving');
  for (let n = 0; n < 100; n++) await writeFeatureChanges(orgId, [{ next: await flagContent(`flag-${String(n).padStart(5, '0')}`), author: { by: 'bench', comment: '' } }]);
  const connection = await createSdkConnection(orgId, newSdkConnection(orgId, { name: 'Web', language: 'javascript', environment: 'production' }));
  const path = `/api/features/${connection.key}`;
  const bareKey = keys.sdkConnectionKey(connection.key);

  const bare = await startServer('bare', { BARE_PK: bareKey.PK, BARE_SK: bareKey.SK });
  const fresh = await startServer('local');
  const cached = await startServer('local', { PAYLOAD_CACHE_MS: '1000' });
  try {
    const first = await fetch(`${fresh.url}${path}`);
    const etag = first.headers.get('etag')!;
    const raw = Buffer.from(await first.arrayBuffer());
    const pid = (server: typeof fresh) => ({ server: server.process.pid!, dynamo: dynamoPid });
    const rows = await measureRounds([
      { title: 'bare GetItem server (one GetItem, no middleware)', options: { url: `${bare.url}/` }, pids: pid(bare) },
      { title: 'GET payload, plain', options: { url: `${fresh.url}${path}` }, pids: pid(fresh) },
      { title: 'GET payload, gzip', options: { url: `${fresh.url}${path}`, headers: { 'accept-encoding': 'gzip' } }, pids: pid(fresh) },
      { title: 'If-None-Match → 304', options: { url: `${fresh.url}${path}`, headers: { 'if-none-match': etag } }, pids: pid(fresh) },
      { title: 'PAYLOAD_CACHE_MS=1000: GET, gzip', options: { url: `${cached.url}${path}`, headers: { 'accept-encoding': 'gzip' } }, pids: pid(cached) },
      { title: 'PAYLOAD_CACHE_MS=1000: 304', options: { url: `${cached.url}${path}`, headers: { 'if-none-match': etag } }, pids: pid(cached) },
    ]);
    printTable(
      `SDK payload serving, 100 flags (targeted rule + 30 % rollout each), ${CONNECTIONS} connections, loopback; ${ROUNDS} rounds of ${LOAD_SECONDS} s per scenario ` +
        `(the first after ${WARMUP_SECONDS} s of warm-up); medians, and ranges over the rounds. ` +
        'Reference (issue 14, Unleash 8 on this machine): 1,024–1,048 req/s plain, 2,064–2,123 req/s 304, 1.0 ms CPU/req',
      rows,
    );
    const bytes: Row[] = [
      {
        flags: 100,
        'raw bytes': raw.length,
        'gzip bytes': gzipSync(raw).length,
        'br bytes (as served)': brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } }).length,
        'reference: Unleash gzip bytes (issue 14)': 2184,
      },
    ];
    printTable('SDK payload bytes (target: gzip ≤ 1.2× Unleash)', bytes);
    return { rows, bytes };
  } finally {
    bare.process.kill();
    fresh.process.kill();
    cached.process.kill();
  }
}

/** Runs every payload benchmark; prints the tables and saves them to bench/results/sdk-payload.json. */
export async function benchSdkPayload(dynamoPid?: number) {
  // BENCH_PAYLOAD_PARTS=serving (say) runs only some: writes, contention, references, serving.
  const parts = new Set((process.env.BENCH_PAYLOAD_PARTS ?? 'writes,contention,references,serving').split(','));
  const writes = parts.has('writes') ? await writeCost() : [];
  const contention = parts.has('contention') ? await concurrentUpdates() : [];
  const references = parts.has('references') ? await concurrentReferenceWrites() : [];
  const { rows, bytes } = parts.has('serving') ? await serving(dynamoPid) : { rows: [], bytes: [] };
  // A run of some parts keeps the saved results of the others.
  const file = join(__dirname, 'results', 'sdk-payload.json');
  const saved = (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}) as Record<string, unknown>;
  const kept = (part: string, field: string, value: unknown) => (parts.has(part) ? value : (saved[field] ?? value));
  saveResults('sdk-payload', {
    connections: CONNECTIONS,
    loadSeconds: LOAD_SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    rounds: ROUNDS,
    writes: kept('writes', 'writes', writes),
    contention: kept('contention', 'contention', contention),
    references: kept('references', 'references', references),
    serving: kept('serving', 'serving', rows),
    bytes: kept('serving', 'bytes', bytes),
  });
}

if (require.main === module) {
  (async () => {
    const { benchDynamo } = await import('./environment');
    const dynamo = process.env.DYNAMODB_ENDPOINT ? undefined : await benchDynamo();
    try {
      await benchSdkPayload(dynamo?.process.pid);
    } finally {
      dynamo?.stop();
    }
  })().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
