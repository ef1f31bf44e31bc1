import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { SdkConnection } from '../../shared/contracts/sdk-connections';
import { isAffected, mergeChanges, proxyRequest, pushesToProxy, type PayloadChange } from '../../shared/payload/proxy-push';
import { sdkPayloadBody } from '../../shared/payload/body';
import { logger } from '../../shared/logger';
import { emitMetrics, type Metric } from '../../shared/metrics';
import { keys } from '../../shared/db/keys';
import { keyRecord, sdkConnections } from '../../shared/store/sdk-connections';
import { loadSdkPayload } from '../../shared/payload/serve';

/**
 * GrowthBook Proxy push: every payload change moves a version item of its environment, and the
 * table's stream brings those writes here. For each organization and environment changed in a
 * batch, the SDK connections with a proxy whose payload the change reaches get their payload POSTed
 * to the proxy, signed (see shared/payload/proxy-push.ts). As GrowthBook, a failed push is tried once
 * more after a pause and then given up: the proxy has the next change's push, and its own polling.
 * A push that fails never holds up the others, nor the stream.
 */

/** GrowthBook waits 5 seconds before its one retry, and gives a push 5 seconds. */
const RETRY_DELAY_MS = 5000;
const TIMEOUT_MS = 5000;

export interface PushOptions {
  retryDelayMs?: number;
  timeoutMs?: number;
}

export interface PushResult {
  /** Pushes a proxy took (2xx), on the first attempt or the retry. */
  pushed: number;
  /** Pushes given up after the retry. */
  failed: number;
}

/** The payload change a stream record reports, or undefined for a record about anything else. */
export function changeOf(record: DynamoDBRecord): PayloadChange | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image || (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY')) return undefined;
  const item = unmarshall(image as Record<string, AttributeValue>);
  if (item.entityType !== 'SDK_VERSION') return undefined;
  const target = keys.sdkVersionOf({ PK: item.PK, SK: item.SK });
  if (!target) return undefined;
  return { ...target, ...(Array.isArray(item.changedProjects) ? { projects: item.changedProjects as string[] } : {}) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One POST; true when the proxy answered 2xx. Says why not in the log, never with the signing key. */
async function post(connection: SdkConnection, body: string, timeoutMs: number): Promise<boolean> {
  const { url, init } = proxyRequest(connection, body);
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return true;
    logger.warn('The proxy refused a payload push', { orgId: connection.organization, connectionId: connection.id, status: response.status });
  } catch (error) {
    logger.warn('A payload push did not reach the proxy', { orgId: connection.organization, connectionId: connection.id, reason: (error as Error).name });
  }
  return false;
}

/** Pushes one connection's current payload to its proxy, retrying once. */
async function push(orgId: string, connection: SdkConnection, options: Required<PushOptions>): Promise<boolean> {
  const { key: _key, orgId: _org, connectionId: _id, encryptPayload, encryptionKey, ...scope } = keyRecord(orgId, connection);
  const { payload } = await loadSdkPayload({ orgId, ...scope });
  const { body } = sdkPayloadBody(payload, { encryptionKey: encryptPayload ? encryptionKey : undefined });
  const json = JSON.stringify(body);
  if (await post(connection, json, options.timeoutMs)) return true;
  await sleep(options.retryDelayMs);
  return post(connection, json, options.timeoutMs);
}

/** Pushes the payload of every proxied connection that the changes in `records` reach. */
export async function pushPayloadChanges(records: DynamoDBRecord[], options: PushOptions = {}): Promise<PushResult> {
  const settings = { retryDelayMs: options.retryDelayMs ?? RETRY_DELAY_MS, timeoutMs: options.timeoutMs ?? TIMEOUT_MS };
  const changes = mergeChanges(records.flatMap((record) => changeOf(record) ?? []));
  const result: PushResult = { pushed: 0, failed: 0 };
  await Promise.all(
    [...changes].map(async ([orgId, orgChanges]) => {
      // The list index keeps `proxy:<enabled>` per connection: one Query of the organization's connections.
      const connections = (await sdkConnections.allTagged(orgId, ['proxy:true'])).filter(
        (connection) => pushesToProxy(connection) && isAffected(connection, orgChanges),
      );
      const outcomes = await Promise.all(connections.map((connection) => push(orgId, connection, settings)));
      for (const ok of outcomes) result[ok ? 'pushed' : 'failed'] += 1;
    }),
  );
  if (result.pushed || result.failed) logger.info('Payload changes pushed to proxies', { ...result });
  return result;
}

/** The stream target. Reading the table may fail (the batch is then retried); a proxy's failure never fails it. */
export async function handler(event: DynamoDBStreamEvent, context: Context): Promise<void> {
  logger.addContext(context);
  const records = event.Records.length;
  const emit = (metrics: Metric[]) => emitMetrics({ Function: 'push-to-proxies' }, [{ dimensions: [['Service', 'Function']], metrics }]);
  try {
    const { pushed, failed } = await pushPayloadChanges(event.Records);
    emit([
      { name: 'RecordsProcessed', unit: 'Count', value: records },
      { name: 'RecordsFailed', unit: 'Count', value: 0 },
      { name: 'ProxyPushes', unit: 'Count', value: pushed },
      { name: 'ProxyPushesFailed', unit: 'Count', value: failed },
    ]);
  } catch (error) {
    // The whole batch goes back to the stream, to be retried.
    emit([
      { name: 'RecordsProcessed', unit: 'Count', value: 0 },
      { name: 'RecordsFailed', unit: 'Count', value: records },
    ]);
    throw error;
  }
}
