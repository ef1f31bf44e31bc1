/**
 * `npx tsx bench/features-list.ts`: what a page of `GET /features` costs in an organization with
 * 10,000 features, at offset 0 and at offset 9,900, next to reading every feature. Uses
 * DYNAMODB_ENDPOINT when set, else starts its own DynamoDB Local. Units come from
 * ReturnConsumedCapacity (the store's `dynamoMeter`), for the whole request, key lookup excluded.
 */
import { printTable, round, saveResults, type Row } from './report';

const SEED_BATCH = 25;
const SEED_PARALLEL = 8;

/** A feature of realistic size (about 1 KB stored): a description, tags and two rules. */
function sampleFeature(n: number) {
  const id = `flag-${String(n).padStart(5, '0')}`;
  return {
    id,
    archived: false,
    description: `Controls behaviour number ${n} of the storefront. `.repeat(6),
    owner: '',
    project: n % 10 === 0 ? 'prj_bench' : '',
    valueType: 'boolean' as const,
    defaultValue: 'false',
    tags: ['bench', `group-${n % 20}`],
    prerequisites: [],
    environments: {
      production: {
        enabled: true,
        rules: [
          { id: `fr_${n}a`, type: 'force' as const, value: 'true', description: '', condition: '{"country":"US"}', enabled: true },
          { id: `fr_${n}b`, type: 'rollout' as const, value: 'true', coverage: 0.5, hashAttribute: 'id', description: '', condition: '', enabled: true },
        ],
      },
      dev: { enabled: true, rules: [] },
    },
    revision: { version: 1, comment: 'bench', date: new Date().toISOString(), createdBy: 'bench', publishedBy: 'bench' },
  };
}

/** Writes the features straight to the table, as the store would store them (not one API call each). */
async function seed(orgId: string, count: number) {
  const { db, tableName } = await import('../shared/db/client');
  const { features } = await import('../shared/store/features');
  const items = Array.from({ length: count }, (_, n) => features.prepareCreate(orgId, sampleFeature(n)).op.Put!.Item);
  const batches: Array<typeof items> = [];
  for (let start = 0; start < items.length; start += SEED_BATCH) batches.push(items.slice(start, start + SEED_BATCH));
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
  // As a bulk write through the store leaves it: the page index stale, due for the scheduler's rebuild.
  const { transact } = await import('../shared/db/repository');
  await transact(features.prepareListChange(orgId));
}

/** Seeds `count` features in one organization and measures list requests against it; returns the table rows. */
export async function benchFeaturesList(options: { count?: number } = {}): Promise<Row[]> {
  const count = options.count ?? 10_000;
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
    const { projects } = await import('../shared/store/projects');
    const { orgId, key } = await benchOrganization();
    await projects.create(orgId, { id: 'prj_bench', name: 'Bench' });
    await seed(orgId, count);

    const get = async (url: string) => {
      const result = await invoke({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
      if (result.statusCode !== 200) throw new Error(`${url} answered ${result.statusCode}: ${result.body}`);
      return JSON.parse(result.body!) as { features: unknown[]; total: number };
    };
    await get('/api/v1/features?limit=1&projectId=none'); // warms the key cache, as a warm container has it

    const rows: Row[] = [];
    const measure = async (request: string, url: string) => {
      dynamoMeter.reset();
      const body = await get(url);
      const used = dynamoMeter.snapshot();
      rows.push({
        request,
        features: body.features.length,
        total: body.total,
        'round trips': used.calls,
        RCU: round(used.readUnits, 1),
        'RCU per feature returned': round(used.readUnits / Math.max(1, body.features.length), 2),
      });
    };

    await measure('first page after the bulk load (stale page index: walks the keys)', '/api/v1/features?limit=10&offset=0');
    // What the scheduler does within a minute of the load (lists only read: GET roles may not write).
    if ((await rebuildDuePageIndexes()) === 0) throw new Error('The page index was not rebuilt');
    await measure('page at offset 0, limit 10', '/api/v1/features?limit=10&offset=0');
    await measure('page at offset 9,900, limit 10', '/api/v1/features?limit=10&offset=9900');
    await measure('page at offset 0, limit 100', '/api/v1/features?limit=100&offset=0');
    await measure('page at offset 9,900, limit 100', '/api/v1/features?limit=100&offset=9900');
    await measure('page at offset 900 of projectId (1,000 match; keys walk)', '/api/v1/features?limit=100&offset=900&projectId=prj_bench');
    process.env.API_ALLOW_SKIP_PAGINATION = 'true';
    await measure('every feature (skipPagination)', '/api/v1/features?skipPagination=true');
    delete process.env.API_ALLOW_SKIP_PAGINATION;

    printTable(`GET /features in an organization with ${count.toLocaleString('en')} features`, rows);
    saveResults('features-list', { count, rows });
    return rows;
  } finally {
    stopDynamo();
  }
}

if (require.main === module) {
  benchFeaturesList().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
