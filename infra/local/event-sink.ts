import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';

/**
 * EventBridge's PutEvents, as far as the event publisher uses it, for `npm start`: the publisher's
 * own EventBridge client is pointed here (AWS_ENDPOINT_URL_EVENTBRIDGE), so the code path Lambda
 * runs is the one that runs locally. Each event is appended to `file` as one JSON line, in the
 * shape a rule's target receives it from the bus.
 */
export interface EventSink {
  endpoint: string;
  close(): Promise<void>;
}

interface Entry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Resources?: string[];
  /** Epoch seconds, as the AWS JSON protocol sends timestamps. */
  Time?: number;
}

function deliver(entry: Entry, file: string, log: boolean): { EventId: string } | { ErrorCode: string; ErrorMessage: string } {
  let detail: unknown;
  try {
    detail = JSON.parse(entry.Detail ?? '');
  } catch {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  }
  if (!entry.Source || !entry.DetailType || typeof detail !== 'object' || detail === null) {
    return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter(s) Source, DetailType or Detail are not valid.' };
  }
  const id = randomUUID();
  const event = {
    version: '0',
    id,
    'detail-type': entry.DetailType,
    source: entry.Source,
    account: '000000000000',
    time: new Date(entry.Time ? entry.Time * 1000 : Date.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'local',
    resources: entry.Resources ?? [],
    detail,
  };
  appendFileSync(file, `${JSON.stringify(event)}\n`);
  if (log) console.log(`event ${entry.DetailType} published to ${entry.EventBusName ?? 'default'} (${file})`);
  return { EventId: id };
}

/** Starts the PutEvents emulator on a free loopback port, appending events to `file`. */
export function startEventSink(options: { file: string; log?: boolean }): Promise<EventSink> {
  mkdirSync(dirname(options.file), { recursive: true });
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(body));
      };
      if (request.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        answer(400, { __type: 'UnknownOperationException', message: `Only PutEvents is emulated locally` });
        return;
      }
      let entries: Entry[];
      try {
        entries = (JSON.parse(Buffer.concat(chunks).toString()) as { Entries?: Entry[] }).Entries ?? [];
      } catch {
        answer(400, { __type: 'SerializationException', message: 'The request body is not JSON' });
        return;
      }
      const results = entries.map((entry) => deliver(entry, options.file, options.log ?? false));
      answer(200, { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results });
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}
