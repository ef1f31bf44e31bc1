import { ConflictError } from '../errors';
import { db, tableName } from '../db/client';
import { newId } from '../ids';
import { keys } from '../db/keys';
import type { TransactionOp } from '../db/repository';

/** Events are kept in the table for this long, then expire through the table's TTL. */
const EVENT_RETENTION_SECONDS = 30 * 24 * 3600;

/** Something that happened, for other systems: written to the table, published to EventBridge from its stream. */
export interface DomainEvent {
  id: string;
  orgId: string;
  /** e.g. `experiment.snapshot.scheduled` */
  event: string;
  /** The resource the event is about. */
  object: { type: string; id: string };
  data: Record<string, unknown>;
  dateCreated: string;
  /**
   * GrowthBook's routing fields, where it gives them (feature events): the environments the change
   * affects, and the projects and tags of what it is about; subscribers filter on them.
   */
  environments?: string[];
  projects?: string[];
  tags?: string[];
}

/** The routing fields of an event (see DomainEvent). */
export type EventRouting = Pick<DomainEvent, 'environments' | 'projects' | 'tags'>;

function eventItem(event: DomainEvent) {
  return {
    ...keys.event(event.orgId, event.dateCreated, event.id),
    entityType: 'EVENT',
    version: 1,
    ...event,
    expiresAt: Math.floor(Date.parse(event.dateCreated) / 1000) + EVENT_RETENTION_SECONDS,
  };
}

/** A new event record (not yet written). */
export function newEvent(orgId: string, event: string, object: DomainEvent['object'], data: Record<string, unknown> = {}, routing: EventRouting = {}): DomainEvent {
  return { id: newId('evt_'), orgId, event, object, data, dateCreated: new Date().toISOString(), ...routing };
}

/** The Put of an event, to write it in the same transaction as the change it reports. */
export function prepareEvent(event: DomainEvent): TransactionOp {
  return {
    op: { Put: { TableName: tableName(), Item: eventItem(event) } },
    // An event write has no condition; a failure here would be a transaction conflict.
    onConditionFailed: () => new ConflictError('conflict', 'The event could not be recorded; retry'),
  };
}

/** Writes one event on its own. */
export async function recordEvent(event: DomainEvent): Promise<void> {
  await db.put({ TableName: tableName(), Item: eventItem(event) });
}
