import { marshall } from '@aws-sdk/util-dynamodb';
import type { PutEventsCommand, PutEventsResponse } from '@aws-sdk/client-eventbridge';
import type { DynamoDBRecord } from 'aws-lambda';
import { EVENT_SOURCE, publish, toEntry } from '../../functions/events/publish-events';
import type { DomainEvent } from '../../shared/store/events';

const BUS = 'switchyard-test';

const domainEvent = (id: string): DomainEvent => ({
  id,
  orgId: 'org_1',
  event: 'experiment.snapshot.scheduled',
  object: { type: 'experiment', id: 'exp_1' },
  data: { snapshotId: 'snp_1' },
  dateCreated: '2025-01-02T03:04:05.000Z',
});

/** A stream record as Lambda delivers it, for an item as the store writes it. */
function record(sequenceNumber: string, item: Record<string, unknown>, eventName: DynamoDBRecord['eventName'] = 'INSERT'): DynamoDBRecord {
  return {
    eventName,
    dynamodb: { SequenceNumber: sequenceNumber, NewImage: marshall(item) as never },
  };
}

const eventItem = (id: string) => ({
  PK: 'ORG#org_1',
  SK: `EVENT#2025-01-02T03:04:05.000Z#${id}`,
  entityType: 'EVENT',
  version: 1,
  expiresAt: 1738465445,
  ...domainEvent(id),
});

describe('toEntry', () => {
  it('turns an inserted event item into a bus entry carrying the event without storage attributes', () => {
    const entry = toEntry(record('1', eventItem('evt_1')), BUS);

    expect(entry).toEqual({
      EventBusName: BUS,
      Source: EVENT_SOURCE,
      DetailType: 'experiment.snapshot.scheduled',
      Time: new Date('2025-01-02T03:04:05.000Z'),
      Detail: JSON.stringify(domainEvent('evt_1')),
    });
  });

  it('ignores items that are not events', () => {
    const entry = toEntry(record('1', { PK: 'ORG#org_1', SK: 'FEATURE#f', entityType: 'FEATURE', version: 1 }), BUS);

    expect(entry).toBeUndefined();
  });

  it('ignores updates and removals, such as an event expiring', () => {
    expect(toEntry(record('1', eventItem('evt_1'), 'MODIFY'), BUS)).toBeUndefined();
    expect(toEntry({ eventName: 'REMOVE', dynamodb: { SequenceNumber: '1' } }, BUS)).toBeUndefined();
  });
});

describe('publish', () => {
  /** Records what was sent; answers each call with the given entry error codes (undefined = accepted). */
  function bus(answers: ((index: number) => string | undefined) | Error = () => undefined) {
    const calls: PutEventsCommand[] = [];
    const send = async (command: PutEventsCommand): Promise<PutEventsResponse> => {
      calls.push(command);
      if (answers instanceof Error) throw answers;
      const entries = command.input.Entries!.map((_entry, index) => {
        const errorCode = answers(calls.length * 100 + index);
        return errorCode ? { ErrorCode: errorCode, ErrorMessage: 'rejected' } : { EventId: `id-${index}` };
      });
      return { FailedEntryCount: entries.filter((entry) => 'ErrorCode' in entry).length, Entries: entries };
    };
    return { calls, send };
  }

  it('sends events at most ten per call and reports no failure when all are accepted', async () => {
    const records = Array.from({ length: 23 }, (_, i) => record(String(i), eventItem(`evt_${i}`)));
    const { calls, send } = bus();

    const failed = await publish(records, BUS, send);

    expect(calls.map((call) => call.input.Entries!.length)).toEqual([10, 10, 3]);
    expect(failed).toEqual([]);
  });

  it('reports exactly the records whose entries the bus rejected', async () => {
    const records = Array.from({ length: 12 }, (_, i) => record(`seq-${i}`, eventItem(`evt_${i}`)));
    // Second entry of the first call, first entry of the second call.
    const { send } = bus((slot) => (slot === 101 || slot === 200 ? 'InternalFailure' : undefined));

    const failed = await publish(records, BUS, send);

    expect(failed).toEqual(['seq-1', 'seq-10']);
  });

  it('reports every record of a call that failed as a whole', async () => {
    const records = [record('a', eventItem('evt_a')), record('b', eventItem('evt_b'))];
    const { send } = bus(new Error('network down'));

    const failed = await publish(records, BUS, send);

    expect(failed).toEqual(['a', 'b']);
  });

  it('skips records that are not new events without calling the bus', async () => {
    const records = [record('1', eventItem('evt_1'), 'MODIFY'), record('2', { PK: 'x', SK: 'y', entityType: 'TEAM', version: 1 })];
    const { calls, send } = bus();

    const failed = await publish(records, BUS, send);

    expect(calls).toEqual([]);
    expect(failed).toEqual([]);
  });
});
