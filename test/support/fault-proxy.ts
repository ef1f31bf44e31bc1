import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does instead of passing a request on: DynamoDB's throttling or server-error answer,
 * a transaction cancelled for throttling (`cancel-throttled`), a dropped connection, or silence. A
 * `lost-answer` passes the request on, lets DynamoDB apply it, and drops the connection instead of
 * answering: the client cannot tell it from a request that never arrived. `signature-refused`
 * refuses the signature as signed too long ago, whatever its date (with `clockOffsetMs`, a server
 * whose clock is off by more than the client can correct).
 */
export type Fault = 'throttle' | 'unavailable' | 'cancel-throttled' | 'reset' | 'silence' | 'lost-answer' | 'signature-refused';

/** A request as it reached the proxy. */
export interface ProxiedRequest {
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  faulted: boolean;
}

export interface FaultProxy {
  endpoint: string;
  faults: {
    /** Which operations to fail (by X-Amz-Target, e.g. `TransactWriteItems`), or all. */
    only: string | undefined;
    /** Which requests to fail by their body (e.g. those naming one organization), or all. */
    matching: ((body: string) => boolean) | undefined;
    /** How many matching requests still fail. */
    remaining: number;
    kind: Fault;
    /** How many requests failed so far. */
    seen: number;
    /**
     * How far DynamoDB's clock is ahead of this machine's (ms): every answer's `Date` says so, and a
     * request signed more than 5 minutes away from it is refused as DynamoDB refuses it.
     */
    clockOffsetMs: number;
  };
  /** Every request, in the order it came. */
  requests: ProxiedRequest[];
  reset(): void;
  close(): Promise<void>;
}

function failureAnswer(kind: 'throttle' | 'unavailable' | 'cancel-throttled', request: string) {
  const answer = (status: number, type: string, fields: object = {}) => ({
    status,
    body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: 'injected fault', ...fields }),
  });
  if (kind === 'throttle') return answer(400, 'ProvisionedThroughputExceededException');
  if (kind === 'unavailable') return answer(500, 'InternalServerError');
  // DynamoDB's answer to a transaction one of whose items was throttled: a reason per item, in order.
  const items = (JSON.parse(request).TransactItems ?? [{}]) as unknown[];
  return answer(400, 'TransactionCanceledException', {
    CancellationReasons: items.map((_, i) => (i === 0 ? { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity for one or more global secondary indexes.' } : { Code: 'None' })),
  });
}

/** YYYYMMDD'T'HHMMSS'Z' as a time. */
const parseAmzDate = (date: string) => Date.parse(date.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));

/**
 * An HTTP proxy in front of DynamoDB Local (`to`) that fails the requests it is told to, so the
 * real client, with its own retries, meets real faults on the wire.
 */
export async function startFaultProxy(to: string): Promise<FaultProxy> {
  const upstream = new URL(to);
  const faults: FaultProxy['faults'] = { only: undefined, matching: undefined, remaining: 0, kind: 'throttle', seen: 0, clockOffsetMs: 0 };
  const requests: ProxiedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(incoming.headers['x-amz-target'] ?? '').split('.').pop()!;
      const faulted = faults.remaining > 0 && (!faults.only || faults.only === target) && (!faults.matching || faults.matching(body.toString('utf8')));
      requests.push({ target, headers: incoming.headers, body: body.toString('utf8'), faulted });
      const serverNow = Date.now() + faults.clockOffsetMs;
      const date = faults.clockOffsetMs ? { date: new Date(serverNow).toUTCString() } : {};
      const signedAt = parseAmzDate(String(incoming.headers['x-amz-date']));
      const refused = faulted && faults.kind === 'signature-refused';
      if (refused || (faults.clockOffsetMs && Math.abs(signedAt - serverNow) > 5 * 60_000)) {
        if (refused) {
          faults.remaining -= 1;
          faults.seen += 1;
        }
        const message = `Signature expired: ${incoming.headers['x-amz-date']} is now earlier than ${new Date(serverNow - 5 * 60_000).toISOString()} (${new Date(serverNow).toISOString()} - 5 min.)`;
        outgoing
          .writeHead(400, { 'content-type': 'application/x-amz-json-1.0', ...date })
          .end(JSON.stringify({ __type: 'com.amazon.coral.service#InvalidSignatureException', message }));
        return;
      }
      if (faulted) {
        faults.remaining -= 1;
        faults.seen += 1;
        if (faults.kind === 'reset') return incoming.socket.destroy();
        if (faults.kind === 'silence') return; // answers nothing; the connection stays open until the client gives up
        if (faults.kind === 'throttle' || faults.kind === 'unavailable' || faults.kind === 'cancel-throttled') {
          const { status, body: answer } = failureAnswer(faults.kind, body.toString('utf8'));
          outgoing.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'injected' }).end(answer);
          return;
        }
      }
      const forwarded = request(
        { hostname: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
        (answer) => {
          if (faulted) {
            // Applied by DynamoDB; its answer never reaches the client.
            answer.resume();
            answer.on('end', () => incoming.socket.destroy());
            return;
          }
          outgoing.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...date });
          answer.pipe(outgoing);
        },
      );
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    faults,
    requests,
    reset() {
      Object.assign(faults, { only: undefined, matching: undefined, remaining: 0, kind: 'throttle', seen: 0, clockOffsetMs: 0 });
      requests.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
