/**
 * `npm start`: DynamoDB Local (data under .data/, or DYNAMODB_ENDPOINT), the table, a default
 * organization with an admin key, the whole API on http://localhost:${PORT:-3000}/api/v1, the
 * scheduler, the table stream's consumers (events to .data/events.jsonl, GrowthBook Proxy pushes), and
 * variation screenshots' images under .data/screenshots.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ensureTable, startDynamoLocal } from './dynamodb';
import { rampAdvancerHandler, tableAccessOf } from '../grants';
import { startEventSink, type EventSink } from './event-sink';
import { asFunction } from './iam';
import { startApiServer } from './server';
import { startStreamConsumers, type StreamConsumers } from './streams';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.TABLE_NAME ??= 'switchyard';
// A proxy on this machine (GrowthBook Proxy at http://localhost:3300, say) may take pushes and be
// written as a connection's proxyHost; never set in AWS, where pushes go only to public https hosts.
process.env.PROXY_PUSH_ALLOW_LOCAL ??= 'true';

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

  // The stream consumers, as the table's event source mappings run them in AWS (LOCAL_STREAMS=off turns them off).
  const dataPath = join(__dirname, '..', '..', '.data');
  // Variation screenshots' images, which the bucket holds in AWS (shared/store/screenshot-objects.ts).
  process.env.SCREENSHOTS_DIR ??= join(dataPath, 'screenshots');
  const eventsFile = process.env.LOCAL_EVENTS_FILE ?? join(dataPath, 'events.jsonl');
  let streams: StreamConsumers | undefined;
  let sink: EventSink | undefined;
  if (process.env.LOCAL_STREAMS !== 'off') {
    sink = await startEventSink({ file: eventsFile, log: true });
    // The publisher's own EventBridge client sends to the local sink, which checks no signature:
    // a machine with no AWS configuration gets a placeholder region and credentials.
    process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = sink.endpoint;
    process.env.EVENT_BUS_NAME ??= 'switchyard-local';
    if (!process.env.AWS_ACCESS_KEY_ID && !process.env.AWS_PROFILE && !existsSync(join(homedir(), '.aws'))) {
      process.env.AWS_REGION ??= 'local';
      process.env.AWS_ACCESS_KEY_ID = 'local';
      process.env.AWS_SECRET_ACCESS_KEY = 'local';
    }
    streams = await startStreamConsumers({ endpoint: process.env.DYNAMODB_ENDPOINT!, tableName: process.env.TABLE_NAME! });
  }

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
    ticker = setTimeout(
      () =>
        asFunction(tableAccessOf(rampAdvancerHandler), 'RampAdvancer', runScheduler)
          .catch((error) => console.error('Scheduler run failed', error))
          .finally(tick),
      tickMs,
    );
  };
  tick();
  console.log(`  Scheduler:    every ${tickMs / 1000} s (RAMP_TICK_SECONDS)`);
  console.log(`  Streams:      ${streams ? `events to ${eventsFile}, GrowthBook Proxy pushes (LOCAL_STREAMS=off to stop)` : 'off'}`);
  console.log(`  Screenshots:  ${process.env.SCREENSHOTS_DIR} (SCREENSHOTS_DIR)`);
  console.log(`  Proxy push:   ${process.env.PROXY_PUSH_ALLOW_LOCAL === 'true' ? 'http://localhost allowed (PROXY_PUSH_ALLOW_LOCAL)' : 'public https hosts only'}`);

  const stop = async () => {
    clearTimeout(ticker);
    server.close();
    await streams?.stop().catch((error) => console.error('Stopping the stream consumers failed', error));
    await sink?.close();
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
