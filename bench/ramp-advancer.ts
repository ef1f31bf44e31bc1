/**
 * `npx tsx bench/ramp-advancer.ts`: how fast one ramp advancer moves due schedules on, and what a
 * transition costs in DynamoDB. Seeds N schedules (each on its own feature, all due at once) in one
 * organization and spread over several, then runs one advancer over each phase of their life:
 * starting (capture + step 1), a next step, and completing (folded steps + end, rule locks freed).
 * Starts a DynamoDB Local of its own (see JAVA_OPTIONS), and measures that store's own ceiling too.
 */
import { readFileSync } from 'node:fs';
import { printTable, round, saveResults, type Row } from './report';

/** Every schedule starts itself at T, then steps every minute: 25% → 50% → 100%. */
const T = new Date('2032-01-01T00:00:00.000Z');
const after = (seconds: number) => new Date(T.getTime() + seconds * 1000);
const phases: Array<[string, Date]> = [
  ['start (capture, step 1)', after(1)],
  ['next step', after(61)],
  ['complete (folded, locks freed)', after(3600)],
];

/** `perOrg` features with a 0% rollout rule and a ready schedule on each, in `orgs` new organizations. */
export async function seed(orgs: number, perOrg: number): Promise<void> {
  const { ruleInput } = await import('../shared/contracts/features');
  const { createRampScheduleBody } = await import('../shared/contracts/ramp-schedules');
  const { newFeature } = await import('../shared/domain/features');
  const { newRampSchedule } = await import('../shared/domain/ramp-definition');
  const { writeFeatureChanges } = await import('../shared/store/features');
  const { newId } = await import('../shared/ids');
  const { createOrganization } = await import('../shared/store/organizations');
  const { insertRampSchedule } = await import('../shared/store/ramp-schedules');
  const steps = [0.25, 0.5, 1].map((coverage) => ({ trigger: { type: 'interval', seconds: 60 }, actions: [{ patch: { coverage } }] }));
  const rule = ruleInput.parse({ id: 'fr_ramp', type: 'rollout', value: 'true', coverage: 0, hashAttribute: 'id' });
  await Promise.all(
    Array.from({ length: orgs }, async () => {
      const { id: orgId } = await createOrganization('Ramp bench');
      for (let n = 0; n < perOrg; n++) {
        const featureId = `ramped-${n}`;
        const content = await newFeature(
          { id: featureId, valueType: 'boolean', defaultValue: 'false', environments: { production: { enabled: true, rules: [rule] } } },
          { environments: ['production', 'dev'], owner: { owner: '' } },
        );
        const [feature] = await writeFeatureChanges(orgId, [{ next: content, author: { by: 'bench', comment: 'Created' } }]);
        const body = createRampScheduleBody.parse({ name: `Ramp ${n}`, featureId, ruleId: 'fr_ramp', steps, startDate: T.toISOString() });
        await insertRampSchedule(orgId, newRampSchedule(body, { id: newId('rs_'), targetId: newId('rt_'), organization: orgId, feature }));
      }
    }),
  );
}

/** CPU time (ms) a process has used so far, from /proc; undefined where there is none. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return undefined;
  }
}

/**
 * DynamoDB Local's JVM options here: its own defaults (the full JIT), as `java -jar DynamoDBLocal.jar`
 * runs it, not the quick-start options the tests use (C1 only: about half the speed once warm).
 * BENCH_RAMP_JAVA_OPTIONS replaces them (e.g. the tests' `-XX:TieredStopAtLevel=1`).
 */
const JAVA_OPTIONS = process.env.BENCH_RAMP_JAVA_OPTIONS ?? '-XX:+UseSerialGC -Xmx1g';

/**
 * Seeds `schedules` due schedules for each spread and measures one advancer over each phase, on a
 * DynamoDB Local of its own (JAVA_OPTIONS), each batched phase followed by the ceiling DynamoDB
 * Local alone sets for it (replay-ceiling.ts); prints the table and the goals; returns the rows.
 */
export async function benchRampAdvancer(
  options: { schedules?: number; spreads?: number[]; concurrency?: number; batchSizes?: number[] } = {},
): Promise<Row[]> {
  const schedules = options.schedules ?? 400;
  const spreads = options.spreads ?? [1, 20];
  // Batches in flight at once (the advancer's default). DynamoDB Local runs one write at a time (a
  // lock per table, one SQLite thread), so more only keeps it busy while others are read and prepared.
  const concurrency = options.concurrency ?? Number(process.env.BENCH_RAMP_CONCURRENCY ?? 4);
  // Schedules per transaction; 1 is the former one-by-one advancer, for comparison; 24 the advancer's default.
  const batchSizes = options.batchSizes ?? (process.env.BENCH_RAMP_BATCH_SIZES?.split(',').map(Number) || [1, 24]);
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { startDynamoLocal, ensureTable } = await import('../infra/local/dynamodb');
  const saved = { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT, TABLE_NAME: process.env.TABLE_NAME, LOG_LEVEL: process.env.LOG_LEVEL };
  const dynamo = await startDynamoLocal({ javaOptions: JAVA_OPTIONS });
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TABLE_NAME = 'switchyard-bench-ramp';
  process.env.LOG_LEVEL ??= 'CRITICAL';
  await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
  const dynamoCpu = () => processCpuMs(dynamo.process.pid);
  try {
    const { advanceDueSchedules } = await import('../functions/scheduler/advance-ramp-schedules');
    const { dynamoMeter, watchCommands } = await import('../shared/db/client');
    const { replayRate } = await import('./replay-ceiling');
    // Items each transaction writes (Put, Delete, Update; not condition checks), counted as they
    // are sent, and the largest transaction of the phase, to replay.
    let itemsWritten = 0;
    let largest: Array<Record<string, never>> = [];
    const unwatch = watchCommands((command, input) => {
      if (command !== 'TransactWriteItemsCommand') return;
      const items = (input as { TransactItems: Array<Record<string, never>> }).TransactItems;
      itemsWritten += items.filter((item) => item.Put || item.Delete || item.Update).length;
      if (items.length > largest.length) largest = items;
    });
    // Warms the JIT up (the full JIT compiles for a while at first, and a cold store is half as
    // fast), on the transactions of a first run.
    await seed(1, 48);
    for (const [, now] of phases) await advanceDueSchedules({ now, concurrency, batchSize: 24 });
    await replayRate(largest, 2, 20);
    const rows: Row[] = [];
    for (const [batchSize, orgs] of batchSizes.flatMap((size) => spreads.map((spread) => [size, spread] as const))) {
      await seed(orgs, Math.ceil(schedules / orgs));
      for (const [phase, now] of phases) {
        dynamoMeter.reset();
        itemsWritten = 0;
        largest = [];
        const cpu = process.cpuUsage();
        const storeCpu = dynamoCpu();
        const started = performance.now();
        const result = await advanceDueSchedules({ now, concurrency, batchSize });
        const seconds = (performance.now() - started) / 1000;
        const nodeMs = (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpu));
        const storeMs = storeCpu === undefined ? undefined : dynamoCpu()! - storeCpu;
        const used = dynamoMeter.snapshot();
        const written = itemsWritten;
        // DynamoDB Local alone, right after the phase: the phase's largest batch, replayed (two at once).
        const schedulesPerBatch = largest.filter((op) => (op as { Put?: { Item: { entityType: string } } }).Put?.Item.entityType === 'RAMP_SCHEDULE').length;
        const ceiling = batchSize > 1 ? schedulesPerBatch * (await replayRate(largest, 2, 3)) : undefined;
        const per = (value: number) => round(value / Math.max(1, result.advanced), 2);
        rows.push({
          'batch size': batchSize,
          organizations: orgs,
          phase,
          advanced: result.advanced,
          skipped: result.skipped,
          failed: result.failed,
          seconds: round(seconds, 2),
          'schedules/s': round(result.advanced / seconds, 1),
          'round trips per transition': per(used.calls),
          'items written per transition': per(written),
          'WCU per transition': per(used.writeUnits),
          'RCU per transition': per(used.readUnits),
          'our CPU ms per transition': per(nodeMs),
          'DynamoDB Local CPU ms per transition': storeMs === undefined ? undefined : per(storeMs),
          'schedules per batch': schedulesPerBatch,
          // Transitions/s DynamoDB Local alone allows: the largest batch's replays per second × its schedules.
          'DynamoDB Local alone/s': ceiling === undefined ? undefined : Math.round(ceiling),
        });
      }
    }
    printTable(
      `One ramp advancer (concurrency ${concurrency}) over ${schedules} due schedules, one by one (batch size 1) and batched, on DynamoDB Local (JVM: ${JAVA_OPTIONS})`,
      rows,
    );
    const goals = spreads.map((orgs) => {
      const measured = rows.filter((row) => row.organizations === orgs && row['batch size'] === batchSizes[batchSizes.length - 1]);
      const rates = measured.map((row) => Number(row['schedules/s']));
      return {
        goal: orgs === 1 ? 'one organization' : `over ${orgs} organizations`,
        target: orgs === 1 ? '≥ 300/s' : '≥ 500/s',
        'batch size': batchSizes[batchSizes.length - 1],
        concurrency,
        'measured/s (phases)': rates.join(', '),
        met: rates.every((rate) => rate >= (orgs === 1 ? 300 : 500)) ? 'yes' : 'no',
        'DynamoDB Local alone/s (phases)': measured.map((row) => row['DynamoDB Local alone/s']).join(', '),
      };
    });
    printTable('Ramp advancer goals (transitions/s)', goals);
    saveResults('ramp-advancer', { schedules, concurrency, batchSizes, javaOptions: JAVA_OPTIONS, rows, goals });
    unwatch();
    return rows;
  } finally {
    dynamo.stop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    }
}

if (require.main === module) {
  benchRampAdvancer().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
