/**
 * `npx tsx bench/ramp-advancer.ts`: how fast one ramp advancer moves due schedules on, and what a
 * transition costs in DynamoDB. Seeds N schedules (each on its own feature, all due at once) in one
 * organization and spread over several, then runs one advancer over each phase of their life:
 * starting (capture + step 1), a next step, and completing (folded steps + end, rule locks freed).
 * Uses DYNAMODB_ENDPOINT when set, else starts its own DynamoDB Local.
 */
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
  const { createFeature } = await import('../shared/store/features');
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
        const content = newFeature(
          { id: featureId, valueType: 'boolean', defaultValue: 'false', environments: { production: { enabled: true, rules: [rule] } } },
          { environments: ['production', 'dev'], owner: { owner: '' } },
        );
        const feature = await createFeature(orgId, content, { by: 'bench', comment: 'Created' });
        const body = createRampScheduleBody.parse({ name: `Ramp ${n}`, featureId, ruleId: 'fr_ramp', steps, startDate: T.toISOString() });
        await insertRampSchedule(orgId, newRampSchedule(body, { id: newId('rs_'), targetId: newId('rt_'), organization: orgId, feature }));
      }
    }),
  );
}

/** Seeds `schedules` due schedules for each spread and measures one advancer over each phase; returns the table rows. */
export async function benchRampAdvancer(
  options: { schedules?: number; spreads?: number[]; concurrency?: number; batchSizes?: number[] } = {},
): Promise<Row[]> {
  const schedules = options.schedules ?? 400;
  const spreads = options.spreads ?? [1, 20];
  // Organizations advanced at once. DynamoDB Local runs transactions nearly one at a time, so there
  // more lanes mostly queue (8 lanes: about 40/s over 20 organizations where 2 gave about 70/s, load ~20).
  const concurrency = options.concurrency ?? Number(process.env.BENCH_RAMP_CONCURRENCY ?? 8);
  // Batches of one organization's schedules per transaction; 1 is the former one-by-one advancer, for comparison.
  const batchSizes = options.batchSizes ?? [1, 20];
  let stopDynamo = () => {};
  if (!process.env.DYNAMODB_ENDPOINT) {
    const { benchDynamo } = await import('./environment');
    stopDynamo = (await benchDynamo()).stop;
  }
  try {
    const { advanceDueSchedules } = await import('../functions/scheduler/advance-ramp-schedules');
    const { db, dynamoMeter } = await import('../shared/store/client');
    // Items each transaction writes (Put, Delete; not condition checks), counted as they are sent.
    let itemsWritten = 0;
    db().middlewareStack.remove('benchItemsWritten');
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') {
          const items = (args.input as { TransactItems: Array<Record<string, unknown>> }).TransactItems;
          itemsWritten += items.filter((item) => item.Put || item.Delete || item.Update).length;
        }
        return next(args);
      },
      { step: 'initialize', name: 'benchItemsWritten' },
    );
    const rows: Row[] = [];
    for (const [batchSize, orgs] of batchSizes.flatMap((size) => spreads.map((spread) => [size, spread] as const))) {
      await seed(orgs, Math.ceil(schedules / orgs));
      for (const [phase, now] of phases) {
        dynamoMeter.reset();
        itemsWritten = 0;
        const started = performance.now();
        const result = await advanceDueSchedules({ now, concurrency, batchSize });
        const seconds = (performance.now() - started) / 1000;
        const used = dynamoMeter.snapshot();
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
          'items written per transition': per(itemsWritten),
          'WCU per transition': per(used.writeUnits),
          'RCU per transition': per(used.readUnits),
        });
      }
    }
    printTable(`One ramp advancer (concurrency ${concurrency}) over ${schedules} due schedules, one by one (batch size 1) and batched, against DynamoDB Local (targets: ≥ 300/s in one organization, ≥ 500/s over 20)`, rows);
    saveResults('ramp-advancer', { schedules, concurrency, batchSizes, rows });
    return rows;
  } finally {
    stopDynamo();
  }
}

if (require.main === module) {
  benchRampAdvancer().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
