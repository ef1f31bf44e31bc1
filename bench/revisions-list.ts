/**
 * `npx tsx bench/revisions-list.ts`: what a page of `GET /v2/feature-revisions` (and v1's `GET /revisions`)
 * costs in an organization with 10,000 feature revisions, at offset 0, 1,000 and 9,900, next to a
 * filtered page (which walks the keys-only list index). Uses DYNAMODB_ENDPOINT when set, else starts
 * its own DynamoDB Local. Units come from ReturnConsumedCapacity (the store's `dynamoMeter`), for the
 * whole request, key lookup excluded.
 */
import { printTable, round, saveResults, type Row } from './report';

const FEATURES = 100;
const SEED_BATCH = 25;
const SEED_PARALLEL = 8;

/** Writes `perFeature` published revisions of each feature straight to the table, dates interleaved, as the store would store them. */
async function seed(orgId: string, perFeature: number) {
  const { db, tableName } = await import('../shared/db/client');
  const { keys } = await import('../shared/db/keys');
  const { revisionItem } = await import('../shared/store/feature-revisions');
  const start = Date.now() - 30 * 24 * 60 * 60 * 1000;
  const items = Array.from({ length: FEATURES * perFeature }, (_, n) => {
    const featureId = `flag-${String(n % FEATURES).padStart(3, '0')}`;
    const version = 2 + Math.floor(n / FEATURES);
    const date = new Date(start + n * 1000).toISOString();
    return revisionItem(orgId, {
      featureId,
      version,
      baseVersion: version - 1,
      comment: 'Bench revision',
      date,
      dateUpdated: date,
      status: 'published',
      createdBy: 'bench',
      publishedBy: 'bench',
      defaultValue: 'false',
      rules: { production: [{ id: `fr_${n}`, type: 'force', value: 'true', description: '', condition: '{"country":"US"}', enabled: true }] },
    });
  });
  const batches: Array<typeof items> = [];
  for (let i = 0; i < items.length; i += SEED_BATCH) batches.push(items.slice(i, i + SEED_BATCH));
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let request: Record<string, unknown[]> | undefined = { [tableName()]: batch.map((Item) => ({ PutRequest: { Item } })) };
      while (request && Object.keys(request).length) {
        const result = await db.batchWrite({ RequestItems: request as never });
        request = result.UnprocessedItems as typeof request;
      }
    }
  };
  await Promise.all(Array.from({ length: SEED_PARALLEL }, worker));
  for (let i = 0; i < FEATURES; i++) {
    await db.update({
      TableName: tableName(),
      Key: keys.entity(orgId, 'FEATURE', `flag-${String(i).padStart(3, '0')}`),
      UpdateExpression: 'SET newestRevision = :newest',
      ExpressionAttributeValues: { ':newest': perFeature + 1 },
    });
  }
  // As a bulk write leaves it: the revision list's page index stale, due for the scheduler's rebuild.
  const { transact } = await import('../shared/db/repository');
  const { prepareRevisionListRemoval } = await import('../shared/store/feature-revisions');
  await transact([prepareRevisionListRemoval(orgId)]);
}

/** Seeds about `count` revisions in one organization and measures list requests against it; returns the table rows. */
export async function benchRevisionsList(options: { count?: number } = {}): Promise<Row[]> {
  const perFeature = Math.round((options.count ?? 10_000) / FEATURES) - 1;
  let stopDynamo = () => {};
  if (!process.env.DYNAMODB_ENDPOINT) {
    const { benchDynamo } = await import('./environment');
    stopDynamo = (await benchDynamo()).stop;
  }
  // A stale page index is rebuilt at once here; in service the scheduler waits for writes to settle.
  process.env.PAGE_INDEX_SETTLE_MS = '0';
  try {
    const { benchOrganization } = await import('./environment');
    const { invoke } = await import('../infra/local/server');
    const { dynamoMeter } = await import('../shared/db/client');
    const { rebuildDuePageIndexes } = await import('../shared/db/page-index');
    const { orgId, key } = await benchOrganization();

    const call = async (method: string, url: string, body?: unknown) => {
      const result = await invoke({
        method,
        url,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? Buffer.from(JSON.stringify(body)) : undefined,
      });
      if (result.statusCode !== 200) throw new Error(`${method} ${url} answered ${result.statusCode}: ${result.body}`);
      return JSON.parse(result.body!) as { revisions: unknown[]; total: number };
    };
    for (let i = 0; i < FEATURES; i++) {
      await call('POST', '/api/v1/features', { id: `flag-${String(i).padStart(3, '0')}`, valueType: 'boolean', defaultValue: 'false' });
    }
    await seed(orgId, perFeature);
    await call('GET', '/api/v2/feature-revisions?limit=1&featureId=none'); // warms the key cache, as a warm container has it

    const rows: Row[] = [];
    const measure = async (request: string, url: string) => {
      dynamoMeter.reset();
      const body = await call('GET', url);
      const used = dynamoMeter.snapshot();
      rows.push({ request, revisions: body.revisions.length, total: body.total, 'round trips': used.calls, RCU: round(used.readUnits, 1) });
    };

    await measure('first page after the bulk load (stale page index: walks the keys)', '/api/v2/feature-revisions?limit=10&offset=0');
    if ((await rebuildDuePageIndexes()) === 0) throw new Error('The page index was not rebuilt');
    await call('GET', '/api/v2/feature-revisions?limit=1&offset=5000'); // warms the container's caches, as the rows after it compare warm requests
    await measure('v2 page at offset 0, limit 10', '/api/v2/feature-revisions?limit=10&offset=0');
    await measure('v2 page at offset 1,000, limit 10', '/api/v2/feature-revisions?limit=10&offset=1000');
    await measure('v2 page at offset 9,900, limit 10', '/api/v2/feature-revisions?limit=10&offset=9900');
    await measure('v1 page at offset 0, limit 10', '/api/v1/revisions?limit=10&offset=0');
    await measure('v1 page at offset 9,900, limit 10', '/api/v1/revisions?limit=10&offset=9900');
    await measure('v2 page at offset 0, limit 100', '/api/v2/feature-revisions?limit=100&offset=0');
    await measure('v2 page at offset 9,900, limit 100', '/api/v2/feature-revisions?limit=100&offset=9900');
    await measure('v2 page at offset 900 of status=published (keys walk)', '/api/v2/feature-revisions?limit=10&offset=900&status=published');
    await measure('v2 page of one feature (featureId: its own key range)', '/api/v2/feature-revisions?limit=10&featureId=flag-007');

    printTable(`GET /v2/feature-revisions in an organization with ${FEATURES * (perFeature + 1)} revisions of ${FEATURES} features`, rows);
    saveResults('revisions-list', { count: FEATURES * (perFeature + 1), rows });
    return rows;
  } finally {
    stopDynamo();
  }
}

if (require.main === module) {
  benchRevisionsList().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
