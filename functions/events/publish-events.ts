import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry, type PutEventsResponse } from '@aws-sdk/client-eventbridge';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/logger';
import { emitMetrics } from '../../shared/metrics';
import type { DomainEvent } from '../../shared/store/events';

/** The `source` of every event on the bus; subscribers match on it. */
export const EVENT_SOURCE = 'switchyard';

/** PutEvents takes at most 10 entries. */
const ENTRIES_PER_CALL = 10;

/**
 * The bus entry for a stream record that inserted an event item, or undefined for any other
 * record. The detail is the event as the API recorded it, without storage attributes.
 */
export function toEntry(record: DynamoDBRecord, eventBusName: string): PutEventsRequestEntry | undefined {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || !image) return undefined;
  const item = unmarshall(image as Record<string, AttributeValue>);
  if (item.entityType !== 'EVENT') return undefined;
  const { id, orgId, event, object, data, dateCreated, environments, projects, tags } = item as DomainEvent;
  // Routing fields only where the event has them, so other events' detail stays as it was.
  const routing = Object.fromEntries(Object.entries({ environments, projects, tags }).filter(([, value]) => value !== undefined));
  const detail: DomainEvent = { id, orgId, event, object, data, dateCreated, ...routing };
  return {
    EventBusName: eventBusName,
    Source: EVENT_SOURCE,
    DetailType: event,
    Time: new Date(dateCreated),
    Detail: JSON.stringify(detail),
  };
}

type Send = (command: PutEventsCommand) => Promise<PutEventsResponse>;

/**
 * Publishes the event items among `records`, 10 per call, and returns the sequence numbers of the
 * records that did not reach the bus. Lambda retries from the first of them, so delivery is at
 * least once: subscribers tell repeats apart by `detail.id`.
 */
export async function publish(records: DynamoDBRecord[], eventBusName: string, send: Send): Promise<string[]> {
  const pending = records.flatMap((record) => {
    const entry = toEntry(record, eventBusName);
    return entry ? [{ record, entry }] : [];
  });
  const failed: DynamoDBRecord[] = [];
  for (let start = 0; start < pending.length; start += ENTRIES_PER_CALL) {
    const chunk = pending.slice(start, start + ENTRIES_PER_CALL);
    try {
      const result = await send(new PutEventsCommand({ Entries: chunk.map((item) => item.entry) }));
      (result.Entries ?? []).forEach((entry, index) => {
        if (entry.ErrorCode) {
          logger.warn('EventBridge rejected an event', { errorCode: entry.ErrorCode, errorMessage: entry.ErrorMessage });
          failed.push(chunk[index].record);
        }
      });
    } catch (error) {
      logger.error('PutEvents failed', { error });
      failed.push(...chunk.map((item) => item.record));
    }
  }
  return failed.map((record) => record.dynamodb!.SequenceNumber!);
}

let client: EventBridgeClient | undefined;

/** Stream handler with partial batch failure reporting. */
export async function handler(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  logger.addContext(context);
  client ??= new EventBridgeClient({});
  const failed = await publish(event.Records, process.env.EVENT_BUS_NAME!, (command) => client!.send(command));
  emitMetrics({ Function: 'publish-events' }, [
    {
      dimensions: [['Service', 'Function']],
      metrics: [
        { name: 'RecordsProcessed', unit: 'Count', value: event.Records.length - failed.length },
        { name: 'RecordsFailed', unit: 'Count', value: failed.length },
      ],
    },
  ]);
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}
