/**
 * `npx tsx bench/ramp-monitoring.ts [exposure rows...]`: what monitoring a ramp costs. Part one, for
 * each size: one monitoring evaluation of a monitored step over N exposure rows (and 2N events, as
 * CSV): the scheduler starts the snapshot, the snapshot runs on DuckDB in this process and stores
 * its results, the next scheduler run judges it and applies the verdict. Counted: DuckDB queries, wall
 * time of each part, and every DynamoDB call and written item. Part two: the scheduler's throughput
 * with 100 monitored ramps due at once, starting their snapshots, then judging them (healthy data: each
 * verdict an advance, which writes its feature, revision, payload and schedule). Locally the snapshot
 * runs start in this process while the first pass goes on, and take CPU from it. Run by `npm run bench`
 * (`monitoring`, 1M rows by default), which starts DynamoDB Local; alone, set DYNAMODB_ENDPOINT.
 */
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { printTable, round, saveResults, type Row } from './report';

const dataDir = path.resolve(process.env.BENCH_ANALYSIS_DIR || '.data/bench-analysis');
const START = Date.parse('2034-01-01T00:00:00.000Z');
const HOUR_SECONDS = 3600;

/** Counts the table client's calls and written items (patched in place: this process only). */
async function countDynamo() {
  const { db } = await import('../shared/db/client');
  const counts = { calls: 0, reads: 0, writeCalls: 0, writtenItems: 0 };
  const writes: Record<string, (input: any) => number> = {
    put: () => 1,
    update: () => 1,
    delete: () => 1,
    batchWrite: (input) => Object.values(input.RequestItems as Record<string, unknown[]>).reduce((n, list) => n + list.length, 0),
    transactWrite: (input) => input.TransactItems.length,
  };
  const table = db as unknown as Record<string, (input: any) => Promise<unknown>>;
  for (const name of ['get', 'put', 'update', 'delete', 'query', 'queryWire', 'batchGet', 'batchWrite', 'transactWrite']) {
    const original = table[name]!;
    table[name] = async (input) => {
      counts.calls += 1;
      if (writes[name]) {
        counts.writeCalls += 1;
        counts.writtenItems += writes[name](input);
      } else counts.reads += 1;
      return original(input);
    };
  }
  return {
    counts,
    reset: () => Object.assign(counts, { calls: 0, reads: 0, writeCalls: 0, writtenItems: 0 }),
  };
}

/** `n` exposures of the ramp's tracking key (half per arm, 1% also seen in the other arm) and 2n events, as CSV. */
async function generate(n: number, trackingKey: string): Promise<string> {
  const folder = `ramp-n${n}-${trackingKey}`;
  if (existsSync(path.join(dataDir, folder, 'events.csv'))) return folder;
  mkdirSync(path.join(dataDir, folder), { recursive: true });
  // mulberry32: the same data on every run.
  let seed = n >>> 0;
  const random = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const units = Math.max(1, Math.floor(n * 0.8));
  const time = () => new Date(START + Math.floor(random() * 20 * HOUR_SECONDS * 1000)).toISOString().slice(0, 23).replace('T', ' ');
  const write = async (file: string, header: string, rows: number, row: (i: number) => string) => {
    const out = createWriteStream(path.join(dataDir, folder, file));
    out.write(`${header}\n`);
    for (let i = 0; i < rows; i++) if (!out.write(`${row(i)}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    await new Promise<void>((resolve) => out.end(() => resolve()));
  };
  await write('exposures.csv', 'user_id,timestamp,experiment_id,variation_id', n, (i) => {
    const unit = i % units;
    const arm = unit % 2 === 0 ? (random() < 0.01 ? 1 : 0) : random() < 0.01 ? 0 : 1;
    return `u${unit},${time()},${trackingKey},${arm}`;
  });
  await write('events.csv', 'user_id,timestamp,event_type,amount', 2 * n, () => {
    const kind = random() < 0.25 ? 'purchase' : 'pageview';
    return `u${Math.floor(random() * units)},${time()},${kind},${Math.floor(random() * 10000) / 100}`;
  });
  return folder;
}

/** An organization served over HTTP in this process, with a DuckDB data source reading `folder` and two metrics on it. */
async function seedOrganization(folder: string, exposureSql = `SELECT * FROM read_csv('${folder}/exposures.csv')`) {
  const { startApiServer } = await import('../infra/local/server');
  const { createOrganization } = await import('../shared/store/organizations');
  const { createApiKey } = await import('../shared/store/api-keys');
  const server = await startApiServer({ port: 0 });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  const org = await createOrganization('Ramp monitoring bench');
  const { secret } = await createApiKey({ orgId: org.id, role: 'admin', description: 'bench' });
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const { dataSource } = await call('POST', '/data-sources', {
    name: 'Bench files',
    type: 'duckdb',
    params: {},
    identifierTypes: [{ id: 'user_id' }],
    assignmentQueries: [{ id: 'users', name: 'Users', identifierType: 'user_id', sql: exposureSql }],
  });
  const { factTable } = await call('POST', '/fact-tables', {
    name: 'Events',
    datasource: dataSource.id,
    userIdTypes: ['user_id'],
    sql: `SELECT * FROM read_csv('${folder}/events.csv')`,
  });
  const purchased = (
    await call('POST', '/fact-metrics', {
      name: 'Purchased',
      metricType: 'proportion',
      numerator: { factTableId: factTable.id, column: '$$distinctUsers', rowFilters: [{ operator: '=', column: 'event_type', values: ['purchase'] }] },
    })
  ).factMetric.id;
  const spend = (await call('POST', '/fact-metrics', { name: 'Spend', metricType: 'mean', numerator: { factTableId: factTable.id, column: 'amount', aggregation: 'sum' } })).factMetric.id;
  const config = { datasourceId: dataSource.id, exposureQueryId: 'users', guardrailMetricIds: [purchased], signalMetricIds: [spend], updateScheduleMinutes: 10, srmAction: 'warn', multipleExposureAction: 'warn' };
  return { orgId: org.id, call, config, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** `count` features with a 0% rollout and a started monitored ramp on each (10% monitored for an hour, then 100%). */
async function seedRamps(call: (method: string, route: string, body?: unknown) => Promise<any>, config: Record<string, unknown>, count: number, prefix: string) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const featureId = `${prefix}-${i}`;
    await call('POST', '/features', {
      id: featureId,
      valueType: 'boolean',
      defaultValue: 'false',
      environments: { production: { enabled: true, rules: [{ type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' }] } },
    });
    const ruleId = (await call('GET', `/features/${featureId}`)).feature.environments.production.rules[0].id;
    const { rampSchedule } = await call('POST', '/ramp-schedules', {
      name: featureId,
      featureId,
      ruleId,
      steps: [
        { trigger: { type: 'interval', seconds: HOUR_SECONDS }, actions: [{ patch: { coverage: 0.1 } }], monitored: true },
        { trigger: { type: 'interval', seconds: HOUR_SECONDS }, actions: [{ patch: { coverage: 1 } }] },
      ],
      monitoringConfig: config,
    });
    await call('POST', `/ramp-schedules/${rampSchedule.id}/actions/start`);
    ids.push(rampSchedule.id);
  }
  return ids;
}

/** Moves a schedule's monitoring window to start at `START` (the generated data's time), with a snapshot due at `due`. */
async function placeInTime(orgId: string, id: string, due: Date) {
  const { changeRampSchedule } = await import('../shared/store/ramp-schedules');
  const at = new Date(START).toISOString();
  await changeRampSchedule(orgId, id, { by: 'bench', publishes: false, assertAllowed: () => undefined, assertMayPublish: () => undefined }, (schedule) => ({
    schedule: {
      ...schedule,
      startedAt: at,
      phaseStartedAt: at,
      currentStepEnteredAt: at,
      monitoringStartDate: at,
      nextStepAt: new Date(START + HOUR_SECONDS * 1000).toISOString(),
      monitoring: { ...schedule.monitoring!, nextSnapshotAt: due.toISOString() },
    },
    writes: [],
    comment: '',
  }));
}

/** Part one: one evaluation per size. */
async function oneEvaluation(n: number): Promise<Row> {
  const dynamo = await countDynamo();
  const { monitorRampSchedule } = await import('../shared/use-cases/ramp-monitoring');
  const { localRunsSettled } = await import('../shared/analysis/snapshot-run');
  const { rampSchedules } = await import('../shared/store/ramp-schedules');
  const { snapshots } = await import('../shared/store/snapshots');
  // The schedule id decides the tracking key the data must carry: seed first, on data generated for it after.
  const probe = await seedOrganization('pending');
  const [id] = await seedRamps(probe.call, probe.config, 1, `eval-${n}`);
  await probe.close();
  const folder = await generate(n, `ramp_${id}`);
  const { dataSources } = await import('../shared/store/data-sources');
  const { factTables } = await import('../shared/store/fact-tables');
  // Point the organization's data source and fact table at the generated files.
  await dataSources.update(probe.orgId, probe.config.datasourceId, (ds) => ({
    ...ds,
    assignmentQueries: ds.assignmentQueries.map((q) => ({ ...q, sql: `SELECT * FROM read_csv('${folder}/exposures.csv')` })),
  }));
  const [table] = (await factTables.list(probe.orgId, { limit: 10, offset: 0 })).items;
  await factTables.update(probe.orgId, table!.id, (current) => ({ ...current, sql: `SELECT * FROM read_csv('${folder}/events.csv')` }));

  const now = new Date(START + HOUR_SECONDS * 1000 + 60_000);
  await placeInTime(probe.orgId, id!, now);
  dynamo.reset();
  let t = performance.now();
  const started = await monitorRampSchedule(probe.orgId, id!, now);
  const startSeconds = (performance.now() - t) / 1000;
  const startCounts = { ...dynamo.counts };
  dynamo.reset();
  t = performance.now();
  await localRunsSettled();
  const runSeconds = (performance.now() - t) / 1000;
  const runCounts = { ...dynamo.counts };
  dynamo.reset();
  t = performance.now();
  const verdict = await monitorRampSchedule(probe.orgId, id!, new Date(now.getTime() + 60_000));
  const judgeSeconds = (performance.now() - t) / 1000;
  const judgeCounts = { ...dynamo.counts };
  const schedule = await rampSchedules.get(probe.orgId, id!);
  const snapshot = await snapshots.get(probe.orgId, schedule.monitoring!.verdict!.snapshotId!);
  if (started !== 'started' || verdict === 'failed') throw new Error(`evaluation did not run: ${started}, ${verdict}: ${schedule.monitoring?.lastError}`);
  return {
    'exposure rows': n,
    events: 2 * n,
    'DuckDB queries': snapshot.queryIds?.length ?? 0,
    verdict: `${verdict}: ${schedule.monitoring?.verdict?.reason}`,
    'start (s)': round(startSeconds, 2),
    'snapshot run (s)': round(runSeconds, 2),
    'judge + apply (s)': round(judgeSeconds, 2),
    'DynamoDB calls (start / run / judge)': `${startCounts.calls} / ${runCounts.calls} / ${judgeCounts.calls}`,
    'DynamoDB written items (start / run / judge)': `${startCounts.writtenItems} / ${runCounts.writtenItems} / ${judgeCounts.writtenItems}`,
  };
}

/** Part two: `count` monitored ramps due at once, over small data (the scheduler's own cost, not DuckDB's). */
async function throughput(count: number): Promise<Row[]> {
  const dynamo = await countDynamo();
  const { monitorDueRampSchedules } = await import('../functions/scheduler/monitor-ramp-schedules');
  const { localRunsSettled } = await import('../shared/analysis/snapshot-run');
  const folder = await generate(10_000, 'ramp_throughput');
  // Every ramp reads the same exposures, as its own: the snapshot's experiment id names the ramp.
  const org = await seedOrganization(folder, `SELECT user_id, timestamp, 'ramp_{{experimentId}}' AS experiment_id, variation_id FROM read_csv('${folder}/exposures.csv')`);
  const ids = await seedRamps(org.call, org.config, count, 'many');
  await org.close();
  const due = new Date(START + HOUR_SECONDS * 1000 + 60_000);
  for (const id of ids) await placeInTime(org.orgId, id, due);
  const rows: Row[] = [];
  const pass = async (label: string, now: Date) => {
    dynamo.reset();
    const t = performance.now();
    const result = await monitorDueRampSchedules({ now, concurrency: 4 });
    const seconds = (performance.now() - t) / 1000;
    const acted = count;
    rows.push({
      pass: label,
      ramps: count,
      outcome: Object.entries(result).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(', '),
      'wall time (s)': round(seconds, 2),
      'ramps/s': round(acted / seconds, 1),
      'DynamoDB calls per ramp': round(dynamo.counts.calls / acted, 1),
      'written items per ramp': round(dynamo.counts.writtenItems / acted, 1),
    });
  };
  await pass('start snapshots', due);
  const t = performance.now();
  await localRunsSettled();
  rows.push({ pass: `${count} snapshot runs on DuckDB (10k rows each, 2 at a time)`, ramps: count, 'wall time (s)': round((performance.now() - t) / 1000, 2) });
  await pass('judge and apply the verdicts', new Date(due.getTime() + 60_000));
  return rows;
}

/** Prints both tables and saves them as bench/results/ramp-monitoring.json. */
export async function benchRampMonitoring(sizes = [1_000_000], ramps = 100): Promise<void> {
  process.env.ANALYSIS_DATA_DIR = dataDir;
  const evaluations: Row[] = [];
  for (const n of sizes) evaluations.push(await oneEvaluation(n));
  printTable('One monitoring evaluation (one snapshot of a monitored step: start, DuckDB run, verdict)', evaluations);
  const scheduler = await throughput(ramps);
  printTable(`Scheduler with ${ramps} monitored ramps due at once`, scheduler);
  saveResults('ramp-monitoring', { evaluations, scheduler });
}

if (require.main === module) {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  benchRampMonitoring(sizes.length ? sizes : undefined).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
