import { randomBytes } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import type { SdkConnection, SdkConnectionSettings } from '../contracts/sdk-connections';
import { retryOnConflict } from '../db/optimistic';
import { db, tableName } from '../db/client';
import { projectTags } from '../domain/project-tags';
import { resolveSdkVersion } from '../payload/sdk-versions';
import { environments } from './environments';
import { newId } from '../ids';
import { keys } from '../db/keys';
import { projects } from './projects';
import { repository, transact, type TransactionOp } from '../db/repository';
import { prepareTouch } from '../payload/write';
import { payloadSettings, type PayloadSettings } from '../payload/scope';

/** SDK connections; lists filter on project and on whether a proxy is enabled. */
export const sdkConnections = repository<SdkConnection>({
  type: 'SDK_CONNECTION',
  label: 'SDK connection',
  listTags: (connection) => [...projectTags(connection.projects), `proxy:${connection.proxyEnabled}`],
});

/**
 * What the global key item holds: enough to serve the public payload route, which has only the
 * key, with a single GetItem. Kept in step with its connection in the same transactions.
 */
export interface SdkKeyRecord extends PayloadSettings {
  key: string;
  orgId: string;
  connectionId: string;
  environment: string;
  projects: string[];
  encryptPayload: boolean;
  encryptionKey: string;
  dateUpdated: string;
}


/** A new client key, `sdk-` and 16 URL-safe random characters. */
export const newSdkKey = () => newId('sdk-');

/** A new AES-128 key, base64, as GrowthBook SDKs take it for `decryptionKey`. */
export const newEncryptionKey = () => randomBytes(16).toString('base64');

/** A new secret a proxy signs its requests with. */
export const newProxySigningKey = () => randomBytes(24).toString('base64url');

/** Refuses an environment or projects that do not exist in the organization (400 naming the field). */
export async function assertTargetsExist(orgId: string, settings: Pick<SdkConnectionSettings, 'environment' | 'projects'>): Promise<void> {
  const [environment, found] = await Promise.all([
    settings.environment ? environments.find(orgId, settings.environment) : undefined,
    settings.projects?.length ? projects.getMany(orgId, settings.projects) : [],
  ]);
  if (settings.environment && !environment) {
    throw new InvalidInputError(`Request body: [environment] environment ${settings.environment} does not exist`);
  }
  const present = new Set(found.map((project) => project.id));
  settings.projects?.forEach((project, i) => {
    if (!present.has(project)) throw new InvalidInputError(`Request body: [projects.${i}] project ${project} does not exist`);
  });
}

/**
 * A connection after applying the given settings; `language` is the reference's single-language
 * input. The language and SDK version are checked (and the version defaulted) as GrowthBook does.
 */
export function withSettings(connection: SdkConnection, settings: SdkConnectionSettings): SdkConnection {
  const { language: _language, ...rest } = settings;
  const given = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  const next = { ...connection, ...given, ...resolveSdkVersion(settings, connection) };
  next.project = next.projects?.[0] ?? '';
  return next;
}

/** A new connection with fresh keys and every switch off unless the settings turn it on. */
export function newSdkConnection(orgId: string, settings: SdkConnectionSettings & { name: string; language: string; environment: string }) {
  const blank: SdkConnection = {
    id: newId('sdk_'),
    dateCreated: '',
    dateUpdated: '',
    name: settings.name,
    organization: orgId,
    languages: [settings.language],
    sdkVersion: '',
    environment: settings.environment,
    project: '',
    projects: [],
    encryptPayload: false,
    encryptionKey: newEncryptionKey(),
    includeVisualExperiments: false,
    includeDraftExperiments: false,
    includeExperimentNames: false,
    includeRedirectExperiments: false,
    includeRuleIds: false,
    includeProjectIdInMetadata: false,
    includeCustomFieldsInMetadata: false,
    allowedCustomFieldsInMetadata: [],
    includeTagsInMetadata: false,
    key: newSdkKey(),
    proxyEnabled: false,
    proxyHost: '',
    proxySigningKey: newProxySigningKey(),
    sseEnabled: false,
    hashSecureAttributes: false,
    remoteEvalEnabled: false,
    savedGroupReferencesEnabled: false,
  };
  const { dateCreated: _c, dateUpdated: _u, ...data } = withSettings(blank, settings);
  return data;
}

/** What the global key item holds for a connection: its payload scope and settings. */
export function keyRecord(orgId: string, connection: SdkConnection): SdkKeyRecord {
  return {
    key: connection.key,
    orgId,
    connectionId: connection.id,
    environment: connection.environment,
    projects: connection.projects ?? [],
    encryptPayload: connection.encryptPayload,
    encryptionKey: connection.encryptionKey,
    dateUpdated: connection.dateUpdated,
    ...Object.fromEntries(payloadSettings.map((name) => [name, connection[name]]).filter(([, value]) => value !== undefined)),
  };
}

function putKeyItem(orgId: string, connection: SdkConnection, create: boolean): TransactionOp {
  return {
    op: {
      Put: {
        TableName: tableName(),
        Item: { ...keys.sdkConnectionKey(connection.key), entityType: 'SDKKEY', version: 1, ...keyRecord(orgId, connection) },
        ...(create ? { ConditionExpression: 'attribute_not_exists(PK)' } : {}),
      },
    },
    onConditionFailed: () => new ConflictError('already_exists', `SDK key ${connection.key} already exists`),
  };
}

/** Stores a new connection and its global key item together. */
export async function createSdkConnection(orgId: string, data: Omit<SdkConnection, 'dateCreated' | 'dateUpdated'>): Promise<SdkConnection> {
  const created = sdkConnections.prepareCreate(orgId, data);
  await transact([created, putKeyItem(orgId, created.entity, true)]);
  return created.entity;
}

/** Read-modify-write of a connection and its key item, retried when another write wins the race. */
export async function updateSdkConnection(
  orgId: string,
  id: string,
  change: (current: SdkConnection) => SdkConnection | Promise<SdkConnection>,
): Promise<SdkConnection> {
  return retryOnConflict(async () => {
    const current = await sdkConnections.read(orgId, id);
    if (!current) throw new NotFoundError(`SDK connection ${id} not found`);
    const updated = sdkConnections.prepareUpdate(orgId, current, await change(current.entity));
    // Warm containers trust a key's settings while the payload versions hold: move them.
    await transact([updated, putKeyItem(orgId, updated.entity, false), prepareTouch(orgId, id)]);
    return updated.entity;
  });
}

/** Deletes a connection and its key item; the key stops serving payloads at once. */
export async function deleteSdkConnection(orgId: string, id: string): Promise<void> {
  const changedMeanwhile = () => new ConflictError('conflict', `SDK connection ${id} was changed by another request; retry`);
  await retryOnConflict(async () => {
    const current = await sdkConnections.read(orgId, id);
    if (!current) throw new NotFoundError(`SDK connection ${id} not found`);
    await transact([
      {
        op: {
          Delete: {
            TableName: tableName(),
            Key: keys.entity(orgId, 'SDK_CONNECTION', id),
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
        onConditionFailed: changedMeanwhile,
      },
      { op: { Delete: { TableName: tableName(), Key: keys.sdkConnectionKey(current.entity.key) } }, onConditionFailed: changedMeanwhile },
      // Warm containers trust a key while the payload versions hold: move them, so the key stops at once.
      prepareTouch(orgId, id),
    ]);
  });
}

/** The connection behind a client key, from any organization; one GetItem. */
export async function findSdkKey(key: string): Promise<SdkKeyRecord | undefined> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.sdkConnectionKey(key), ConsistentRead: true });
  if (!Item) return undefined;
  const { key: found, orgId, connectionId, environment, projects, encryptPayload, encryptionKey, dateUpdated } = Item;
  const settings = Object.fromEntries(payloadSettings.filter((name) => Item[name] !== undefined).map((name) => [name, Item[name]]));
  return { key: found, orgId, connectionId, environment, projects, encryptPayload, encryptionKey, dateUpdated, ...settings };
}
