import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../errors';
import { canonicalJson, type FeatureContent } from '../domain/features';
import {
  payloadEntry,
  sdkPayload,
  entriesForProjects,
  scheduleBoundaries,
  type PayloadEntry,
  type SdkPayload,
} from '../domain/sdk-payload';
import { db, tableName } from './client';
import { environments } from './environments';
import { keys } from './keys';
import { getItems, type StoredItem, type TransactionOp } from './repository';
import { loadPayloadReferences } from './payload-references';
import { secureAttributeSalt } from './organizations';
import type { PayloadSettings } from './sdk-connections';

/**
 * The materialised SDK payload: one item per organization and environment holding the payload
 * entry of every feature served there, gzip-compressed. It is rewritten in the same transaction as
 * every feature change, so it is never behind the features; saved groups and experiments are read
 * fresh when a payload is served. A payload larger than one chunk spills into further items.
 */

const CHUNK_BYTES = 300 * 1024;
const READ_ATTEMPTS = 5;

export interface StoredPayload {
  entries: Record<string, PayloadEntry>;
  version: number;
  dateUpdated: string;
  chunks: number;
}

const conflict = () => new ConflictError('conflict', 'The SDK payload was changed by another request at the same time; retry');

async function readHead(orgId: string, environment: string): Promise<StoredItem | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.sdkPayload(orgId, environment, 0), ConsistentRead: true }),
  );
  return Item as StoredItem | undefined;
}

/** The stored payload entries of one environment, or undefined when no feature was ever served there. */
export async function readPayload(orgId: string, environment: string): Promise<StoredPayload | undefined> {
  return assemblePayload(orgId, environment, await readHead(orgId, environment));
}

/** The payload whose first chunk the caller read as `head`: reads its further chunks, if any, and unpacks it. */
async function assemblePayload(orgId: string, environment: string, head: StoredItem | undefined): Promise<StoredPayload | undefined> {
  for (let attempt = 1; ; attempt++) {
    if (!head) return undefined;
    const chunks = head.chunks as number;
    const parts: Uint8Array[] = [head.data as Uint8Array];
    if (chunks > 1) {
      const rest = await getItems(Array.from({ length: chunks - 1 }, (_, i) => keys.sdkPayload(orgId, environment, i + 1)));
      // Chunks of another version mean a write landed between the two reads: read again.
      if (rest.some((item) => item?.version !== head!.version)) {
        if (attempt === READ_ATTEMPTS) throw conflict();
        head = await readHead(orgId, environment);
        continue;
      }
      parts.push(...rest.map((item) => item!.data as Uint8Array));
    }
    const { entries } = JSON.parse(gunzipSync(Buffer.concat(parts)).toString('utf8')) as { entries: Record<string, PayloadEntry> };
    return { entries, version: head.version, dateUpdated: head.dateUpdated as string, chunks };
  }
}

/** The writes that replace an environment's payload by `entries`, conditional on the version `current` was read at. */
function preparePayloadWrite(
  orgId: string,
  environment: string,
  current: StoredPayload | undefined,
  entries: Record<string, PayloadEntry>,
): TransactionOp[] {
  const version = (current?.version ?? 0) + 1;
  const data = gzipSync(JSON.stringify({ entries }));
  const parts: Buffer[] = [];
  for (let start = 0; start === 0 || start < data.length; start += CHUNK_BYTES) parts.push(data.subarray(start, start + CHUNK_BYTES));
  const item = (chunk: number) => ({ ...keys.sdkPayload(orgId, environment, chunk), entityType: 'SDK_PAYLOAD', version, data: parts[chunk] });
  const ops: TransactionOp[] = [
    {
      op: {
        Put: {
          TableName: tableName(),
          Item: { ...item(0), chunks: parts.length, dateUpdated: new Date().toISOString() },
          ...(current
            ? { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': current.version } }
            : { ConditionExpression: 'attribute_not_exists(PK)' }),
        },
      },
      onConditionFailed: conflict,
    },
  ];
  for (let chunk = 1; chunk < parts.length; chunk++) {
    ops.push({ op: { Put: { TableName: tableName(), Item: item(chunk) } }, onConditionFailed: conflict });
  }
  for (let chunk = parts.length; chunk < (current?.chunks ?? 0); chunk++) {
    ops.push({ op: { Delete: { TableName: tableName(), Key: keys.sdkPayload(orgId, environment, chunk) } }, onConditionFailed: conflict });
  }
  return ops;
}

/** A feature before and after a change (undefined before a create, after a delete). */
export interface FeatureTransition {
  id: string;
  before?: FeatureContent;
  after?: FeatureContent;
}

/**
 * The payload writes that keep every environment's payload in step with these feature changes.
 * Reads the affected payloads now; the writes are conditional on what was read, so they belong in
 * the same transaction as the feature writes (a lost race fails the whole transaction, to be retried).
 */
export async function preparePayloadChanges(orgId: string, transitions: FeatureTransition[]): Promise<TransactionOp[]> {
  const byEnvironment = new Map<string, Map<string, PayloadEntry | undefined>>();
  for (const { id, before, after } of transitions) {
    const environmentIds = new Set([...Object.keys(before?.environments ?? {}), ...Object.keys(after?.environments ?? {})]);
    for (const environment of environmentIds) {
      const old = before && payloadEntry(before, environment);
      const next = after && payloadEntry(after, environment);
      if (canonicalJson(old ?? null) === canonicalJson(next ?? null)) continue;
      if (!byEnvironment.has(environment)) byEnvironment.set(environment, new Map());
      byEnvironment.get(environment)!.set(id, next);
    }
  }
  const writes = await Promise.all(
    [...byEnvironment].map(async ([environment, changes]) => {
      const current = await readPayload(orgId, environment);
      const entries = { ...current?.entries };
      for (const [id, entry] of changes) {
        if (entry) entries[id] = entry;
        else delete entries[id];
      }
      return preparePayloadWrite(orgId, environment, current, entries);
    }),
  );
  return writes.flat();
}

/**
 * Moves `dateUpdated` of every payload of the organization to now, without changing content. For
 * changes the payload reads fresh but that leave no date behind (a deleted saved group or
 * experiment): SDKs treat an unchanged `dateUpdated` as an unchanged payload.
 */
export async function touchSdkPayloads(orgId: string): Promise<void> {
  const date = new Date().toISOString();
  const all = await environments.all(orgId);
  await Promise.all(
    all.map((environment) =>
      db()
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.sdkPayload(orgId, environment.id, 0),
            UpdateExpression: 'SET dateUpdated = :date',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':date': date },
          }),
        )
        .catch((error: Error) => {
          if (error.name !== 'ConditionalCheckFailedException') throw error;
        }),
    ),
  );
}

/** What an SDK connection asks for: one environment, projects (none means all), and the settings that shape its payload. */
export interface PayloadScope extends PayloadSettings {
  orgId: string;
  environment: string;
  projects: string[];
  /** When the connection itself last changed: a connection moved to another environment must not look unchanged. */
  dateUpdated: string;
}

/**
 * The SDK payload of a connection at `now`. A bounded number of reads whatever the number of
 * features: the environment, the payload item (plus its chunks for a payload over 300 KB
 * compressed), and the saved groups, experiments and attribute types its rules need. A connection
 * to an environment that no longer exists gets no features.
 */
export async function loadSdkPayload(scope: PayloadScope, now = new Date()): Promise<SdkPayload> {
  // The environment, the payload's first chunk and (to hash secure attributes) the organization in one round trip.
  const [environment, head, organization] = await getItems([
    keys.entity(scope.orgId, environments.type, scope.environment),
    keys.sdkPayload(scope.orgId, scope.environment, 0),
    ...(scope.hashSecureAttributes ? [keys.organization(scope.orgId)] : []),
  ]);
  const stored = await assemblePayload(scope.orgId, scope.environment, head);
  const entries = environment && stored ? stored.entries : {};
  const served = entriesForProjects(entries, scope.projects);
  const refs = await loadPayloadReferences(scope.orgId, served);
  // A schedule step that has passed changed the payload at that moment, whether or not anything was written.
  const passedSteps = scheduleBoundaries(served).filter((date) => date <= now.toISOString());
  const dates = [scope.dateUpdated, ...(stored ? [stored.dateUpdated] : []), ...refs.dates, ...passedSteps];
  const dateUpdated = dates.reduce((latest, date) => (date > latest ? date : latest));
  return sdkPayload(entries, {
    projects: scope.projects,
    refs,
    dateUpdated,
    now,
    includeRuleIds: scope.includeRuleIds,
    includeExperimentNames: scope.includeExperimentNames,
    secureAttributeSalt: scope.hashSecureAttributes ? secureAttributeSalt(organization) : undefined,
  });
}
