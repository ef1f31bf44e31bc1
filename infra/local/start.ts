/**
 * `npm start`: DynamoDB Local (data under .data/, or DYNAMODB_ENDPOINT), the table, a default
 * organization with an admin key, and the whole API on http://localhost:${PORT:-3000}/api/v1.
 */
import { join } from 'node:path';
import { ensureTable, startDynamoLocal } from './dynamodb';
import { startApiServer } from './server';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.TABLE_NAME ??= 'switchyard';

const DEFAULT_ORG_ID = 'org_default';

async function main() {
  const port = Number(process.env.PORT ?? 3000);
  let stopDynamo = () => {};
  if (!process.env.DYNAMODB_ENDPOINT) {
    const dynamo = await startDynamoLocal({ dataPath: join(__dirname, '..', '..', '.data') });
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    stopDynamo = dynamo.stop;
  }
  await ensureTable(process.env.DYNAMODB_ENDPOINT!, process.env.TABLE_NAME!);

  // Imported after the endpoint is known: the store reads it when it first connects.
  const { ensureOrganizationWithAdminKey } = await import('../../scripts/bootstrap');
  const { orgId, secret, reused } = await ensureOrganizationWithAdminKey({
    orgId: DEFAULT_ORG_ID,
    name: 'Default organization',
    secret: process.env.SWITCHYARD_API_KEY,
  });

  const server = await startApiServer({ port, host: process.env.HOST ?? '127.0.0.1', log: true });
  const base = `http://localhost:${port}/api/v1`;
  console.log(`Switchyard is serving ${base}`);
  console.log(`  DynamoDB:     ${process.env.DYNAMODB_ENDPOINT} (table ${process.env.TABLE_NAME})`);
  console.log(`  Organization: ${orgId}`);
  console.log(`  Admin key:    ${secret}${reused ? ' (from SWITCHYARD_API_KEY)' : ''}`);
  console.log(`  Try:          curl -H "Authorization: Bearer ${secret}" ${base}/saved-groups`);

  // The scheduler (ramps, schedule boundaries), as EventBridge runs it in AWS; each tick waits for the one before to finish.
  const { runScheduler } = await import('../../functions/scheduler/advance-ramp-schedules');
  const tickMs = (Number(process.env.RAMP_TICK_SECONDS) || 5) * 1000;
  let ticker: NodeJS.Timeout;
  const tick = () => {
    ticker = setTimeout(() => runScheduler().catch((error) => console.error('Scheduler run failed', error)).finally(tick), tickMs);
  };
  tick();
  console.log(`  Scheduler:    every ${tickMs / 1000} s (RAMP_TICK_SECONDS)`);

  const stop = () => {
    clearTimeout(ticker);
    server.close();
    stopDynamo();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
