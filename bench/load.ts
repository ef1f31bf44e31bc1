/**
 * Load: the local server under a bounded load on loopback, for a read and a write endpoint,
 * next to a bare server doing one GetItem per request at the same concurrency.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../infra/local/dynamodb';
import { printTable, round, saveResults, type Row } from './report';

const DURATION_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 5);
const CONNECTIONS = 10;

export async function startServer(kind: 'local' | 'bare', env: Record<string, string> = {}): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'serve.ts'), kind], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child };
}

async function hammer(title: string, options: autocannon.Options): Promise<Row> {
  await autocannon({ ...options, duration: 2 }); // warm-up: compile, connect, fill caches
  const result = await autocannon({ ...options, duration: DURATION_SECONDS, connections: CONNECTIONS });
  return {
    scenario: title,
    'req/s': round(result.requests.average, 0),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    'non-2xx': result.non2xx,
  };
}

/** Runs the load scenarios against a DynamoDB endpoint that is already seeded. */
export async function measureLoad(seed: { key: string; savedGroupId: string; savedGroupKey: { PK: string; SK: string } }) {
  const bare = await startServer('bare', { BARE_PK: seed.savedGroupKey.PK, BARE_SK: seed.savedGroupKey.SK });
  const local = await startServer('local');
  const auth = { authorization: `Bearer ${seed.key}`, 'content-type': 'application/json' };
  try {
    const rows = [
      await hammer('bare GetItem server', { url: `${bare.url}/` }),
      await hammer('GET /saved-groups/{id}', { url: `${local.url}/api/v1/saved-groups/${seed.savedGroupId}`, headers: auth }),
      // Every request creates a new group: a write load without contention on one item.
      await hammer('POST /saved-groups', {
        url: `${local.url}/api/v1/saved-groups`,
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: 'load', attributeKey: 'id', values: ['a'] }),
      }),
    ];
    const baseline = Number(rows[0]['req/s']);
    for (const row of rows) row['vs bare'] = round(Number(row['req/s']) / baseline);
    printTable(`Load: ${CONNECTIONS} connections, ${DURATION_SECONDS} s each, loopback (target: read ≥ 0.8× bare, zero errors)`, rows);
    saveResults('load', { connections: CONNECTIONS, durationSeconds: DURATION_SECONDS, rows });
    return rows;
  } finally {
    bare.process.kill();
    local.process.kill();
  }
}
