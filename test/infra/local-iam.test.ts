import { eventPublisherHandler, rampAdvancerHandler, tableAccessOf } from '../../infra/grants';
import { asFunction } from '../../infra/local/iam';
import { invoke } from '../../infra/local/server';
import { routes } from '../../shared/contracts/registry';
import { db, tableName, watchCommands } from '../../shared/db/client';
import { readPageIndex } from '../../shared/db/page-index';
import { newId } from '../../shared/ids';
import { createTestOrg, type TestOrg } from '../support/api';

const handlerOf = (operationId: string) => routes.find((route) => route.spec.operationId === operationId)!.handler;
const listFeatures = handlerOf('listFeatures');
const postFeature = handlerOf('postFeature');

const item = (PK: string) => ({ PK, SK: `T#${newId('x_')}`, entityType: 'TEST', version: 1 });
const exists = async (key: { PK: string; SK: string }) => (await db.get({ TableName: tableName(), Key: { PK: key.PK, SK: key.SK }, ConsistentRead: true })).Item !== undefined;

/** AWS's answer to a call the role may not make, as the SDK (and shared/db/dynamo-http.ts) surfaces it. */
const refusal = (action: string, why: RegExp) =>
  expect.objectContaining({
    name: 'AccessDeniedException',
    $metadata: expect.objectContaining({ httpStatusCode: 400 }),
    message: expect.stringMatching(new RegExp(`^User: arn:aws:sts::\\d+:assumed-role/\\S+ is not authorized to perform: ${action} on resource: arn:aws:dynamodb:[^:]+:\\d+:table/${tableName()} ${why.source}`)),
  });

describe('IAM emulation of the local runtime', () => {
  it('refuses a PutItem planted in a GET handler, as AWS does, and writes nothing', async () => {
    expect(tableAccessOf(listFeatures)).toBe('read');
    const planted = item(`ORG#${newId('org_')}`);

    const put = asFunction(tableAccessOf(listFeatures), 'listFeatures', () => db.put({ TableName: tableName(), Item: planted }));

    await expect(put).rejects.toEqual(refusal('dynamodb:PutItem', /because no identity-based policy allows the dynamodb:PutItem action/));
    expect(await exists(planted)).toBe(false);
  });

  it('checks each write of a transaction as the action it is', async () => {
    const org = `ORG#${newId('org_')}`;
    const write = asFunction(tableAccessOf(listFeatures), 'listFeatures', () =>
      db.transactWrite({ TransactItems: [{ Update: { TableName: tableName(), Key: { PK: org, SK: 'T#1' }, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': 1 } } }] }),
    );

    await expect(write).rejects.toEqual(refusal('dynamodb:UpdateItem', /because no identity-based policy/));
  });

  it('lets a writer write organization items but denies it any write to an API key, alone, in a transaction or in a batch', async () => {
    expect(tableAccessOf(postFeature)).toBe('read-write');
    const org = `ORG#${newId('org_')}`;
    const allowed = item(org);
    const apiKey = { ...item(`APIKEY#${newId('hash_')}`), SK: 'APIKEY' };
    const asWriter = <T>(run: () => Promise<T>) => asFunction(tableAccessOf(postFeature), 'postFeature', run);
    const explicitDeny = (action: string) => refusal(action, /with an explicit deny in an identity-based policy/);

    await asWriter(() => db.put({ TableName: tableName(), Item: allowed }));
    await expect(asWriter(() => db.put({ TableName: tableName(), Item: apiKey }))).rejects.toEqual(explicitDeny('dynamodb:PutItem'));
    await expect(
      asWriter(() => db.transactWrite({ TransactItems: [{ Put: { TableName: tableName(), Item: item(org) } }, { Put: { TableName: tableName(), Item: apiKey } }] })),
    ).rejects.toEqual(explicitDeny('dynamodb:PutItem'));
    await expect(
      asWriter(() => db.batchWrite({ RequestItems: { [tableName()]: [{ PutRequest: { Item: item(org) } }, { DeleteRequest: { Key: { PK: apiKey.PK, SK: apiKey.SK } } }] } })),
    ).rejects.toEqual(explicitDeny('dynamodb:BatchWriteItem'));
    await expect(asWriter(() => db.delete({ TableName: tableName(), Key: { PK: apiKey.PK, SK: apiKey.SK } }))).rejects.toEqual(explicitDeny('dynamodb:DeleteItem'));

    expect(await exists(allowed)).toBe(true);
    expect(await exists(apiKey)).toBe(false);
  });

  it('refuses every table call of a function without table access, and checks nothing outside a function', async () => {
    expect(tableAccessOf(eventPublisherHandler)).toBe('none');
    const key = { PK: `ORG#${newId('org_')}`, SK: 'ORG' };

    await expect(asFunction(tableAccessOf(eventPublisherHandler), 'Publisher', () => db.get({ TableName: tableName(), Key: key }))).rejects.toEqual(
      refusal('dynamodb:GetItem', /because no identity-based policy allows/),
    );
    await expect(db.get({ TableName: tableName(), Key: key })).resolves.toBeDefined();
    await expect(asFunction(tableAccessOf(rampAdvancerHandler), 'RampAdvancer', () => db.put({ TableName: tableName(), Item: item(key.PK) }))).resolves.toBeDefined();
  });
});

describe('lists with a stale page index, under the emulation', () => {
  let org: TestOrg;
  const settle = process.env.PAGE_INDEX_SETTLE_MS;

  beforeAll(async () => {
    org = await createTestOrg('Stale page index');
    process.env.PAGE_INDEX_SETTLE_MS = '0';
  });
  afterAll(() => {
    process.env.PAGE_INDEX_SETTLE_MS = settle;
  });

  const request = (method: string, url: string, body?: unknown) =>
    invoke({
      method,
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${org.keys.admin}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? Buffer.from(JSON.stringify(body)) : undefined,
    });

  const variations = [
    { key: '0', name: 'Control' },
    { key: '1', name: 'Treatment' },
  ];

  // In AWS the list rebuilt the index with a PutItem its GET role lacks, and answered 500.
  it.each([
    ['features', 'FEATURE', { id: 'first', valueType: 'boolean', defaultValue: 'false', owner: 'o' }, 'feature'],
    ['experiments', 'EXPERIMENT', { trackingKey: 'first', name: 'First', variations }, 'experiment'],
  ] as const)('GET /%s answers 200 from a stale index, and writes nothing', async (resource, type, body, field) => {
    // The organization's first create finds no index, and leaves it stale.
    const created = await request('POST', `/${resource}`, body);
    expect(created.statusCode).toBe(200);
    expect(await readPageIndex(org.orgId, type)).toMatchObject({ stale: true });

    const calls: string[] = [];
    const stop = watchCommands((command) => void calls.push(command));
    const list = await request('GET', `/${resource}`).finally(stop);

    expect(list.statusCode).toBe(200);
    expect(JSON.parse(list.body!)[resource].map((entity: { id: string }) => entity.id)).toEqual([JSON.parse(created.body!)[field].id]);
    expect(calls.filter((command) => !/^(GetItem|BatchGetItem|Query)Command$/.test(command))).toEqual([]);
    expect(await readPageIndex(org.orgId, type)).toMatchObject({ stale: true });
  });
});
