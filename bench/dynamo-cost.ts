/**
 * DynamoDB cost per request: round trips and consumed read/write units (from
 * ReturnConsumedCapacity) of one representative request per endpoint, next to the minimum; the
 * calls on its critical path (the longest chain of calls each sent after the last was answered:
 * calls sent together count once) next to its latency, served warm in this process.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { invoke } from '../infra/local/server';
import { analysisDataDir } from '../shared/analysis/engines/duckdb';
import { clearAuthCache } from '../shared/api/auth';
import { dynamoMeter } from '../shared/db/client';
import { findApiKey, hashSecret } from '../shared/store/api-keys';
import { runAdmin } from '../scripts/admin';
import { printTable, round, saveResults, type Row } from './report';
import { scenario, type Ids, type Step } from './scenarios';

/** One request through the in-process API Gateway emulator, as the bench and the scenario test send it. */
export async function call(key: string, method: string, url: string, body?: unknown) {
  const result = await invoke({
    method,
    url,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
  });
  // Bodies are JSON except the few text documents (openapi.yaml), which stay text.
  const json = /json/.test(String(result.headers?.['content-type'] ?? 'application/json'));
  return { status: result.statusCode ?? 200, body: result.body ? (json ? JSON.parse(result.body) : result.body) : undefined };
}

/** Makes what a step needs (its data files, `admin` command and `setup`), then waits (polling, at most a minute) for the background work it depends on. */
export async function settle(key: string, step: Step, ids: Ids): Promise<void> {
  for (const [file, text] of Object.entries(step.files ?? {})) {
    const target = join(analysisDataDir(), file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  if (step.admin) {
    const found = await findApiKey(hashSecret(key));
    if (!found) throw new Error(`the admin command of ${step.operationId} has no organization: the key is unknown`);
    await runAdmin(step.admin(found.orgId, ids));
  }
  if (step.setup) {
    const { path, body, capture } = step.setup(ids);
    const response = await call(key, 'POST', path, body);
    if (response.status !== 200) throw new Error(`the setup of ${step.operationId} answered ${response.status}: ${JSON.stringify(response.body)}`);
    capture(response.body, ids);
  }
  if (!step.settle) return;
  const { path, done } = step.settle(ids);
  for (let i = 0; i < 600; i++) {
    if (done((await call(key, 'GET', path)).body)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs the scenario with a warm key cache and returns one row per endpoint. */
export async function measureDynamoCost(seed: { key: string; ids: Ids }) {
  const ids = { ...seed.ids };
  await call(seed.key, 'GET', '/api/v1/members'); // warm the key cache, as a warm container has it
  if (seed.ids.memberToken) await call(seed.ids.memberToken, 'GET', '/api/v1/members'); // the review steps' token too
  const rows: Row[] = [];
  for (const step of scenario) {
    await settle(seed.key, step, ids);
    dynamoMeter.reset();
    const started = performance.now();
    const response = await call(step.key?.(ids) ?? seed.key, step.method, step.path(ids), step.body?.(ids));
    const ms = performance.now() - started;
    const used = dynamoMeter.snapshot();
    if (response.status === 200) step.capture?.(response.body, ids);
    rows.push({
      endpoint: step.operationId,
      status: response.status,
      'round trips': used.calls,
      'critical path': dynamoMeter.criticalPath(),
      ms: round(ms, 1),
      RCU: round(used.readUnits, 1),
      WCU: round(used.writeUnits, 1),
      minimum: step.minimum.calls,
      'at minimum': response.status >= 300 ? `FAILED ${response.status}` : used.calls <= step.minimum.calls ? 'yes' : 'NO',
      why: step.minimum.why,
    });
  }

  clearAuthCache();
  dynamoMeter.reset();
  const cold = await call(seed.key, 'GET', '/api/v1/saved-groups?limit=1');
  const coldKey = dynamoMeter.snapshot();
  dynamoMeter.reset();
  await call(seed.key, 'GET', '/api/v1/saved-groups?limit=1');
  const warmKey = dynamoMeter.snapshot();
  const keyRows: Row[] = [
    { request: 'GET /saved-groups, key not cached', status: cold.status, 'round trips': coldKey.calls, RCU: round(coldKey.readUnits, 1) },
    { request: 'GET /saved-groups, key cached (warm)', status: cold.status, 'round trips': warmKey.calls, RCU: round(warmKey.readUnits, 1) },
  ];

  printTable('DynamoDB cost per request (key cached, as in a warm container; ms: the request served warm in this process, one run)', rows);
  printTable('Key resolution: the key is read once per container and TTL, never on warm requests', keyRows);
  saveResults('dynamo-cost', { rows, keyRows });
  return { rows, keyRows, ids };
}
