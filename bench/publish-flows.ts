/**
 * `npm run bench -- publish`: what publishing a draft costs in DynamoDB, and how long it takes,
 * three ways: one draft through POST .../publish, one draft through its scheduled publish (arming
 * it, then the scheduler firing it), and several drafts together through POST
 * /releases/publish-revisions (one transaction, so its items grow with the release). Round trips,
 * the calls on the critical path, read and write units (ReturnConsumedCapacity), and the time
 * served warm in this process; each the median of several runs on features of their own.
 * DynamoDB Local's write units for a transaction do not grow with its items, so the transaction's
 * items are also counted from the request, and its write units computed as DynamoDB prices a
 * transaction: 2 per item per started KB (the item's size taken as its JSON, a slight overestimate).
 */
import { dynamoMeter, watchCommands } from '../shared/db/client';
import { benchOrganization } from './environment';
import { call } from './dynamo-cost';
import { printTable, quantile, round, saveResults, type Row } from './report';

const RUNS = 5;
const WHEN = '2040-01-01T00:00:00.000Z';

let counter = 0;

/** A feature on in production and dev, with one rule, and a draft of it with a new default value. */
async function featureWithDraft(key: string): Promise<{ id: string; version: number }> {
  const id = `bench-publish-${++counter}`;
  const created = await call(key, 'POST', '/api/v1/features', {
    id,
    valueType: 'string',
    defaultValue: 'blue',
    environments: {
      production: { enabled: true, rules: [{ type: 'force', value: 'gold', condition: '{"vip":true}' }] },
      dev: { enabled: true, rules: [] },
    },
  });
  if (created.status !== 200) throw new Error(`POST /features answered ${created.status}: ${JSON.stringify(created.body)}`);
  const draft = await call(key, 'POST', `/api/v2/features/${id}/revisions`, {});
  const version = draft.body.revision.version as number;
  await call(key, 'PUT', `/api/v2/features/${id}/revisions/${version}/default-value`, { defaultValue: 'green' });
  return { id, version };
}

/** Runs `act` after `arrange` RUNS times, metering only `act`; the medians of what it cost. */
async function measure(what: string, arrange: () => Promise<unknown>, act: (arranged: any) => Promise<{ status: number }>): Promise<Row> {
  const samples: Array<{ calls: number; critical: number; rcu: number; wcu: number; ms: number; status: number; items: number; priced: number }> = [];
  for (let run = 0; run < RUNS; run++) {
    const arranged = await arrange();
    const transactions: Array<Array<Record<string, any>>> = [];
    const stop = watchCommands((command, input) => {
      if (command === 'TransactWriteItemsCommand') transactions.push(input.TransactItems as Array<Record<string, any>>);
    });
    dynamoMeter.reset();
    const started = performance.now();
    const { status } = await act(arranged).finally(stop);
    const ms = performance.now() - started;
    const used = dynamoMeter.snapshot();
    const items = transactions.flat();
    const priced = items.reduce((sum, op) => {
      const item = op.Put?.Item ?? op.Update ?? op.Delete?.Key ?? op.ConditionCheck?.Key ?? {};
      return sum + 2 * Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(item)) / 1024));
    }, 0);
    samples.push({ calls: used.calls, critical: dynamoMeter.criticalPath(), rcu: used.readUnits, wcu: used.writeUnits, ms, status, items: items.length, priced });
  }
  const median = (pick: (sample: (typeof samples)[number]) => number) => quantile(samples.map(pick), 0.5);
  return {
    publish: what,
    status: samples.map((sample) => sample.status).join(','),
    'round trips': median((sample) => sample.calls),
    'critical path': median((sample) => sample.critical),
    RCU: round(median((sample) => sample.rcu), 1),
    'WCU (Local)': round(median((sample) => sample.wcu), 1),
    'transaction items': median((sample) => sample.items),
    'WCU (priced)': median((sample) => sample.priced),
    'ms (median)': round(median((sample) => sample.ms), 1),
  };
}

/** Measures every way to publish, prints the table and writes bench/results/publish-flows.json. */
export async function benchPublishFlows(): Promise<Row[]> {
  const { key, orgId } = await benchOrganization();
  const { fireScheduledPublish } = await import('../shared/use-cases/scheduled-publish');
  await call(key, 'GET', '/api/v1/members'); // warm the key cache, as a warm container has it
  const rows: Row[] = [];

  rows.push(
    await measure('POST /v2/.../publish (one draft)', () => featureWithDraft(key), async ({ id, version }) => {
      const response = await call(key, 'POST', `/api/v2/features/${id}/revisions/${version}/publish`, {});
      return { status: response.status };
    }),
  );
  rows.push(
    await measure('POST /v2/.../schedule-publish (arm)', () => featureWithDraft(key), async ({ id, version }) => {
      const response = await call(key, 'POST', `/api/v2/features/${id}/revisions/${version}/schedule-publish`, { scheduledPublishAt: WHEN });
      return { status: response.status };
    }),
  );
  rows.push(
    await measure(
      'scheduled publish fired by the scheduler',
      async () => {
        const draft = await featureWithDraft(key);
        await call(key, 'POST', `/api/v2/features/${draft.id}/revisions/${draft.version}/schedule-publish`, { scheduledPublishAt: WHEN });
        return draft;
      },
      async ({ id, version }) => {
        const outcome = await fireScheduledPublish({ orgId, at: WHEN, publish: { featureId: id, version } }, new Date(WHEN));
        return { status: outcome === 'published' ? 200 : 500 };
      },
    ),
  );
  for (const size of [1, 5, 10]) {
    rows.push(
      await measure(
        `POST /v1/releases/publish-revisions (${size} draft${size > 1 ? 's' : ''})`,
        () => Promise.all(Array.from({ length: size }, () => featureWithDraft(key))),
        async (drafts: Array<{ id: string; version: number }>) => {
          const response = await call(key, 'POST', '/api/v1/releases/publish-revisions', {
            revisions: drafts.map((draft) => ({ entityType: 'feature', ...draft })),
          });
          return { status: response.status };
        },
      ),
    );
  }
  printTable(`Publishing a draft: DynamoDB cost and time (median of ${RUNS}, key cached, served warm in this process)`, rows);
  saveResults('publish-flows', { rows });
  return rows;
}
