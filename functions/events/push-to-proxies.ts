import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import pLimit from 'p-limit';
import type { SdkConnection } from '../../shared/contracts/sdk-connections';
import { isAffected, mergeChanges, proxyRequest, pushesToProxy, type PayloadChange } from '../../shared/payload/proxy-push';
import { sdkPayloadBody } from '../../shared/payload/body';
import { BlockedProxyError, postToProxy, type ProxyPostOptions } from '../../shared/payload/proxy-host';
import { isTransient } from '../../shared/db/transient';
import { logger } from '../../shared/logger';
import { emitMetrics, type Metric } from '../../shared/metrics';
import { keys } from '../../shared/db/keys';
import { keyRecord, sdkConnections } from '../../shared/store/sdk-connections';
import { loadSdkPayload } from '../../shared/payload/serve';

/**
 * GrowthBook Proxy push: every payload change moves a version item of its environment, and the
 * table's stream brings those writes here. For each organization and environment changed in a
 * batch, the SDK connections with a proxy whose payload the change reaches get their payload POSTed
 * to the proxy, signed (see shared/payload/proxy-push.ts), only to a public address and never
 * through a redirect (shared/payload/proxy-host.ts). As GrowthBook, a failed push is tried once
 * more after a pause and then given up: the proxy has the next change's push, and its own polling.
 * A push that fails never holds up the others, nor the stream. A table read that fails holds up
 * only the records whose connections needed it: they are reported as batch item failures (when the
 * failure is transient) or logged and skipped (when reading again would fail again).
 */

/** GrowthBook waits 5 seconds before its one retry, and gives a push 5 seconds. */
const RETRY_DELAY_MS = 5000;
const TIMEOUT_MS = 5000;
/** Pushes in flight at once for one organization, and for the whole batch: a large organization cannot take every socket. */
const PUSHES_PER_ORG = 4;
const PUSHES_IN_FLIGHT = 16;

export interface PushOptions {
  retryDelayMs?: number;
  timeoutMs?: number;
  /** Resolves proxy host names (tests inject one); `dns.lookup` by default. */
  resolve?: ProxyPostOptions['resolve'];
}

export interface PushResult {
  /** Pushes a proxy took (2xx), on the first attempt or the retry. */
  pushed: number;
  /** Pushes given up: after the retry, to a refused address, or because the payload could not be read for good. */
  failed: number;
  /** Sequence numbers of the records to deliver again: a table read they needed failed transiently. */
  retry: string[];
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

type Settings = Required<Omit<PushOptions, 'resolve'>> & Pick<PushOptions, 'resolve'>;

/** One POST; 'ok' when the proxy answered 2xx, 'blocked' when its address is refused. Says why not in the log, never with the signing key. */
async function post(connection: SdkConnection, body: string, settings: Settings): Promise<'ok' | 'failed' | 'blocked'> {
  const { url, init } = proxyRequest(connection, body);
  const where = { orgId: connection.organization, connectionId: connection.id };
  try {
    const status = await postToProxy(url, init, { timeoutMs: settings.timeoutMs, resolve: settings.resolve });
    if (status >= 200 && status < 300) return 'ok';
    // A redirect is not followed: it is a refusal like any other non-2xx answer.
    logger.warn('The proxy refused a payload push', { ...where, status });
  } catch (error) {
    if (error instanceof BlockedProxyError) {
      logger.warn('A payload push was refused: its proxy host is not a public address', { ...where, reason: error.message });
      return 'blocked';
    }
    logger.warn('A payload push did not reach the proxy', { ...where, reason: (error as Error).name });
  }
  return 'failed';
}

/** Pushes one connection's current payload to its proxy, retrying once (not to a refused address, which would be refused again). */
async function push(orgId: string, connection: SdkConnection, settings: Settings): Promise<boolean> {
  const { key: _key, orgId: _org, connectionId: _id, encryptPayload, encryptionKey, ...scope } = keyRecord(orgId, connection);
  const { payload } = await loadSdkPayload({ orgId, ...scope });
  const { body } = sdkPayloadBody(payload, { encryptionKey: encryptPayload ? encryptionKey : undefined });
  const json = JSON.stringify(body);
  const first = await post(connection, json, settings);
  if (first !== 'failed') return first === 'ok';
  await sleep(settings.retryDelayMs);
  return (await post(connection, json, settings)) === 'ok';
}

/**
 * What a failed table read means for `records`: a transient failure sends them back to the stream
 * (true), any other is logged and they are skipped (false), since reading again would fail again.
 */
function readFailed(error: unknown, where: Record<string, unknown>): boolean {
  if (isTransient(error)) {
    logger.warn('A table read for a proxy push failed for now: its records will be delivered again', { ...where, reason: (error as Error).name });
    return true;
  }
  logger.error('A table read for a proxy push failed for good: its records are skipped', { ...where, error });
  return false;
}

/** Pushes the payload of every proxied connection that the changes in `records` reach. */
export async function pushPayloadChanges(records: DynamoDBRecord[], options: PushOptions = {}): Promise<PushResult> {
  const settings: Settings = { retryDelayMs: options.retryDelayMs ?? RETRY_DELAY_MS, timeoutMs: options.timeoutMs ?? TIMEOUT_MS, resolve: options.resolve };
  const changed = records.flatMap((record) => {
    const change = changeOf(record);
    return change ? [{ record, change }] : [];
  });
  const changes = mergeChanges(changed.map((entry) => entry.change));
  const result: PushResult = { pushed: 0, failed: 0, retry: [] };
  const retry = new Set<DynamoDBRecord>();
  /** The records of `orgId` whose change reaches `connection` (all of them without one). */
  const recordsOf = (orgId: string, connection?: SdkConnection) =>
    changed.filter((entry) => entry.change.orgId === orgId && (!connection || isAffected(connection, [entry.change]))).map((entry) => entry.record);
  const inFlight = pLimit(PUSHES_IN_FLIGHT);
  await Promise.all(
    [...changes].map(async ([orgId, orgChanges]) => {
      let connections: SdkConnection[];
      try {
        // The list index keeps `proxy:<enabled>` per connection: one Query of the organization's connections.
        connections = (await sdkConnections.allTagged(orgId, ['proxy:true'])).filter((connection) => pushesToProxy(connection) && isAffected(connection, orgChanges));
      } catch (error) {
        if (readFailed(error, { orgId })) recordsOf(orgId).forEach((record) => retry.add(record));
        return;
      }
      const perOrg = pLimit(PUSHES_PER_ORG);
      await Promise.all(
        connections.map((connection) =>
          perOrg(() =>
            inFlight(async () => {
              try {
                result[(await push(orgId, connection, settings)) ? 'pushed' : 'failed'] += 1;
              } catch (error) {
                // Only reading the connection's payload throws: the other connections' pushes go on.
                result.failed += 1;
                if (readFailed(error, { orgId, connectionId: connection.id })) recordsOf(orgId, connection).forEach((record) => retry.add(record));
              }
            }),
          ),
        ),
      );
    }),
  );
  result.retry = records.filter((record) => retry.has(record)).map((record) => record.dynamodb!.SequenceNumber!);
  if (result.pushed || result.failed || result.retry.length) logger.info('Payload changes pushed to proxies', { pushed: result.pushed, failed: result.failed, retry: result.retry.length });
  return result;
}

/** The stream target: the records whose table reads failed for now are retried, a proxy's failure never is. */
export async function handler(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  logger.addContext(context);
  const records = event.Records.length;
  const emit = (metrics: Metric[]) => emitMetrics({ Function: 'push-to-proxies' }, [{ dimensions: [['Service', 'Function']], metrics }]);
  try {
    const { pushed, failed, retry } = await pushPayloadChanges(event.Records);
    emit([
      { name: 'RecordsProcessed', unit: 'Count', value: records - retry.length },
      { name: 'RecordsFailed', unit: 'Count', value: retry.length },
      { name: 'ProxyPushes', unit: 'Count', value: pushed },
      { name: 'ProxyPushesFailed', unit: 'Count', value: failed },
    ]);
    return { batchItemFailures: retry.map((itemIdentifier) => ({ itemIdentifier })) };
  } catch (error) {
    // Nothing expected throws here (table reads are caught per connection): the whole batch goes back to the stream.
    emit([
      { name: 'RecordsProcessed', unit: 'Count', value: 0 },
      { name: 'RecordsFailed', unit: 'Count', value: records },
    ]);
    throw error;
  }
}
