import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does instead of passing a request on: DynamoDB's throttling or server-error answer, a dropped connection, or silence. */
export type Fault = 'throttle' | 'unavailable' | 'reset' | 'silence';

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
    /** How many matching requests still fail. */
    remaining: number;
    kind: Fault;
    /** How many requests failed so far. */
    seen: number;
  };
  /** Every request, in the order it came. */
  requests: ProxiedRequest[];
  reset(): void;
  close(): Promise<void>;
}

function failureAnswer(kind: 'throttle' | 'unavailable') {
  const [status, type] = kind === 'throttle' ? [400, 'ProvisionedThroughputExceededException'] : [500, 'InternalServerError'];
  return { status, body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: 'injected fault' }) };
}

/**
 * An HTTP proxy in front of DynamoDB Local (`to`) that fails the requests it is told to, so the
 * real client, with its own retries, meets real faults on the wire.
 */
export async function startFaultProxy(to: string): Promise<FaultProxy> {
  const upstream = new URL(to);
  const faults: FaultProxy['faults'] = { only: undefined, remaining: 0, kind: 'throttle', seen: 0 };
  const requests: ProxiedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(incoming.headers['x-amz-target'] ?? '').split('.').pop()!;
      const faulted = faults.remaining > 0 && (!faults.only || faults.only === target);
      requests.push({ target, headers: incoming.headers, body: body.toString('utf8'), faulted });
      if (faulted) {
        faults.remaining -= 1;
        faults.seen += 1;
        if (faults.kind === 'reset') return incoming.socket.destroy();
        if (faults.kind === 'silence') return; // answers nothing; the connection stays open until the client gives up
        const { status, body: answer } = failureAnswer(faults.kind);
        outgoing.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'injected' }).end(answer);
        return;
      }
      const forwarded = request(
        { hostname: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
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
      Object.assign(faults, { only: undefined, remaining: 0, kind: 'throttle', seen: 0 });
      requests.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
