import { canonicalJson, type FeatureContent } from '../domain/features';
import {
  payloadEntry,
  sdkPayload,
  entriesForProjects,
  scheduleBoundaries,
  type PayloadEntry,
  type SdkPayload,
} from './rules';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import { queryAll, type TransactionOp } from '../db/repository';
import { payloadChangedMeanwhile as changedMeanwhile, shardOf, versionBump } from './versions';
import { loadPayloadReferences, type KnownReferences } from './references';
import { capabilitySettings, scrubForCapabilities } from './scrub';
import { reducePrerequisites } from './prerequisites';
import { connectionCapabilities, latestSdkVersion } from './sdk-versions';
import { autoExperimentsFor, loadAutoExperiments } from './auto-experiment-sources';
import { savedGroupValues } from './saved-group-references';
import { holdoutApplies } from './holdouts';
import { holdouts } from '../store/holdouts';
import { servedProjects, withInheritedSettings, type EnvironmentParents } from './environment-inheritance';
import { getSecureAttributeSalt } from '../store/organizations';
import { projects } from '../store/projects';
import type { PayloadSettings } from '../store/sdk-connections';

/**
 * The materialised SDK payload, stored so that a feature change writes a fixed amount whatever the
 * number of features:
 * - one entry item per feature and environment where it is served (`SDK_ENTRY#<env>#<shard>#<feature>`),
 *   put or deleted in the same transaction as the feature;
 * - per environment, 16 small version items, one per shard of the features (`SDK_VERSION#<env>#<shard>`).
 *   A feature change bumps its shard's version with an `ADD` in the same transaction;
 * - per organization, 16 references versions (`SDK_VERSION!<shard>`, see payload-version.ts) for
 *   everything else the payload reads: saved groups, experiments, attributes, environments, connections.
 * Sharding the version spreads concurrent writers of one organization over 16 items, so they seldom
 * meet; when two do, the transaction fails and the writer retries it.
 * A reader proves its cached payload current with one Query of the version items, and after a
 * change re-reads only the entries of the shards whose version moved.
 */

/**
 * A feature shard's bump names the projects of the features it changed, so the table's stream tells
 * which SDK connections the change reaches (proxy pushes); a references bump reaches them all.
 */
function shardBump(orgId: string, environment: string, shard: string, date: string, projects: Set<string>) {
  const bump = versionBump(keys.sdkVersion(orgId, environment, shard), date);
  return {
    ...bump,
    UpdateExpression: `${bump.UpdateExpression}, changedProjects = :projects`,
    ExpressionAttributeValues: { ...bump.ExpressionAttributeValues, ':projects': [...projects] },
  };
}

/** A feature before and after a change (undefined before a create, after a delete). */
export interface FeatureTransition {
  id: string;
  before?: FeatureContent;
  after?: FeatureContent;
}

/**
 * The payload writes that keep every environment's payload in step with these feature changes: the
 * entry of each feature in each environment where it changed (put, or deleted when no longer
 * served), and one version bump per environment and shard touched; a child environment (of
 * `parents`) where a feature has no settings gets its entry from its parent's. Reads nothing;
 * belongs in the same transaction as the feature writes.
 */
export function preparePayloadChanges(orgId: string, transitions: FeatureTransition[], parents: EnvironmentParents = new Map()): TransactionOp[] {
  const ops: TransactionOp[] = [];
  // One bump per environment and shard (one op per item and transaction), naming the projects changed.
  const bumps = new Map<string, { environment: string; shard: string; projects: Set<string> }>();
  const date = new Date().toISOString();
  for (const transition of transitions) {
    // Child environments' entries are written with their parents', so serving them reads nothing more.
    const { id } = transition;
    const before = transition.before && withInheritedSettings(transition.before, parents);
    const after = transition.after && withInheritedSettings(transition.after, parents);
    const shard = shardOf(id);
    const environmentIds = new Set([...Object.keys(before?.environments ?? {}), ...Object.keys(after?.environments ?? {})]);
    for (const environment of environmentIds) {
      const old = before && payloadEntry(before, environment);
      const next = after && payloadEntry(after, environment);
      if (canonicalJson(old ?? null) === canonicalJson(next ?? null)) continue;
      const Key = keys.sdkEntry(orgId, environment, shard, id);
      ops.push({
        op: next
          ? { Put: { TableName: tableName(), Item: { ...Key, entityType: 'SDK_ENTRY', version: 1, featureId: id, entry: JSON.stringify(next) } } }
          : { Delete: { TableName: tableName(), Key } },
        onConditionFailed: changedMeanwhile,
      });
      const bump = bumps.get(`${environment}#${shard}`) ?? { environment, shard, projects: new Set<string>() };
      for (const entry of [old, next]) if (entry) bump.projects.add(entry.project ?? '');
      bumps.set(`${environment}#${shard}`, bump);
    }
  }
  for (const { environment, shard, projects } of bumps.values()) {
    ops.push({ op: { Update: shardBump(orgId, environment, shard, date, projects) }, onConditionFailed: changedMeanwhile });
  }
  return ops;
}

/** The versions of an environment's payload as one Query read them. */
export interface PayloadVersions {
  /** Equal tokens mean equal stored payloads (entries and references). */
  token: string;
  /** The environment's shard versions, by shard. */
  versions: Map<string, number>;
  /** The latest `dateUpdated` of the version items; undefined when nothing was ever written. */
  dateUpdated?: string;
}

const isShard = (suffix: string) => /^\d\d$/.test(suffix);

/**
 * One consistent Query of the organization's version items, keeping the 16 references versions
 * and `environment`'s 16 shard versions: about 2 KB per environment and 2 KB more, so 1 RCU for one
 * environment and 1 more per two after that. Every SDK payload request makes it, so its input and
 * answer stay in attribute values (`db.queryWire`): it reads the three attributes it needs as they come.
 */
export async function readPayloadVersions(orgId: string, environment: string): Promise<PayloadVersions> {
  const prefix = keys.sdkVersionPrefix(environment);
  const referencesPrefix = keys.sdkReferencesVersionPrefix();
  const versions = new Map<string, number>();
  const references: string[] = [];
  let dateUpdated: string | undefined;
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    // All version items share a prefix, so one Query reads the references versions with the shards
    // (and other environments' shards, which are left out here: keys cannot be filtered on).
    const page = await db.queryWire({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :all)',
      ExpressionAttributeValues: { ':pk': { S: keys.sdkVersion(orgId, environment, '').PK }, ':all': { S: keys.sdkAllVersionsPrefix() } },
      ExpressionAttributeNames: { '#version': 'version' },
      ProjectionExpression: 'SK, #version, dateUpdated',
      ConsistentRead: true,
      ExclusiveStartKey,
    });
    for (const item of page.Items ?? []) {
      const SK = item.SK.S!;
      const shard = SK.slice(prefix.length);
      if (SK.startsWith(referencesPrefix)) references.push(`${SK.slice(referencesPrefix.length)}:${item.version.N}`);
      else if (SK.startsWith(prefix) && isShard(shard)) versions.set(shard, Number(item.version.N));
      else continue; // another environment's, or a per-environment `refs` item from before the organization's: never bumped now
      const date = item.dateUpdated?.S;
      if (date && (!dateUpdated || date > dateUpdated)) dateUpdated = date;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const token = [`refs ${references.join(',')}`, ...[...versions].map(([shard, version]) => `${shard}:${version}`)].join(',');
  return { token, versions, dateUpdated };
}

/** An environment's payload content at some versions: its entries. */
export interface PayloadState extends PayloadVersions {
  shards: Map<string, Record<string, PayloadEntry>>;
  /** Every entry of the environment, by feature id. */
  entries: Record<string, PayloadEntry>;
}

/** Per warm container: the last state read of each environment. */
const states = new Map<string, PayloadState>();
/** Refreshes under way, so concurrent requests that find the same change read it once. */
const refreshing = new Map<string, Promise<PayloadState>>();
const MAX_CACHED_STATES = 200;

/** More shards changed than this, and one Query of all the environment's entries costs fewer calls than one per shard. */
const QUERY_PER_SHARD_UP_TO = 2;

/** The entries under `prefix` (one shard's, or the whole environment's), by shard and feature id. */
async function readEntries(orgId: string, environment: string, prefix: string): Promise<Map<string, Record<string, PayloadEntry>>> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.sdkVersion(orgId, environment, '').PK, ':prefix': prefix },
    ProjectionExpression: 'SK, featureId, entry',
    ConsistentRead: true,
  });
  const shardAt = keys.sdkEntryPrefix(environment).length;
  const shards = new Map<string, Record<string, PayloadEntry>>();
  for (const item of items) {
    const shard = (item.SK as string).slice(shardAt, shardAt + 2);
    if (!shards.has(shard)) shards.set(shard, {});
    shards.get(shard)![item.featureId as string] = JSON.parse(item.entry as string) as PayloadEntry;
  }
  return shards;
}

/**
 * The payload content of an environment at `versions` (just read): this container's cached state
 * when the versions are the same, otherwise the cached state with the entries of the shards whose
 * version moved read again (every shard the first time). The entries read are at least as new as
 * `versions`, so a state is never older than its token says; at worst a later request reads a shard again.
 */
export async function payloadState(orgId: string, environment: string, versions: PayloadVersions): Promise<PayloadState> {
  const cacheKey = `${orgId}\n${environment}`;
  const cached = states.get(cacheKey);
  if (cached?.token === versions.token) return cached;
  const refreshKey = `${cacheKey}\n${versions.token}`;
  let pending = refreshing.get(refreshKey);
  if (!pending) {
    pending = refreshState(orgId, environment, versions, cached).finally(() => refreshing.delete(refreshKey));
    refreshing.set(refreshKey, pending);
  }
  const state = await pending;
  states.delete(cacheKey);
  states.set(cacheKey, state);
  if (states.size > MAX_CACHED_STATES) states.delete(states.keys().next().value!);
  return state;
}

async function refreshState(orgId: string, environment: string, versions: PayloadVersions, previous?: PayloadState): Promise<PayloadState> {
  const changed = [...versions.versions.keys()].filter((shard) => previous?.versions.get(shard) !== versions.versions.get(shard));
  const prefixes =
    changed.length > QUERY_PER_SHARD_UP_TO ? [keys.sdkEntryPrefix(environment)] : changed.map((shard) => keys.sdkEntryShardPrefix(environment, shard));
  const read = await Promise.all(prefixes.map((prefix) => readEntries(orgId, environment, prefix)));
  const shards = new Map(previous?.shards);
  for (const shard of changed) shards.set(shard, read.find((found) => found.has(shard))?.get(shard) ?? {});
  const entries: Record<string, PayloadEntry> = {};
  for (const shard of shards.values()) Object.assign(entries, shard);
  return { ...versions, shards, entries };
}

/** What an SDK connection asks for: one environment, projects (none means all), and the settings that shape its payload. */
export interface PayloadScope extends PayloadSettings {
  orgId: string;
  environment: string;
  projects: string[];
  /** When the connection itself last changed: a connection moved to another environment must not look unchanged. */
  dateUpdated: string;
}

/** A built payload, and when it changes by itself (a scheduled rule's next step), if ever. */
export interface BuiltPayload {
  payload: SdkPayload;
  validUntil?: string;
}

/**
 * The one place the SDK payload is built: a connection's payload at `now` from an environment's
 * entries, reading the saved groups, experiments and attribute types they need (and, to hash
 * secure attributes, the organization's salt; for project metadata, the projects' public ids).
 * `dates` are the stored payload's own dates.
 */
export async function buildSdkPayload(
  scope: PayloadScope,
  entries: Record<string, PayloadEntry>,
  dates: string[],
  now = new Date(),
  known: KnownReferences = {},
): Promise<BuiltPayload> {
  // What the connection's SDK cannot read is switched off here and scrubbed from the result.
  const capabilities = scopeCapabilities(scope);
  scope = capabilitySettings(scope, capabilities);
  // The references are read for the connection's projects; the environment, read with them, may narrow those.
  const candidates = entriesForProjects(entries, scope.projects);
  const holdoutIds = [...new Set(candidates.flatMap((entry) => (entry.holdout ? [entry.holdout.id] : [])))];
  const [refs, salt, named, auto, assigned] = await Promise.all([
    loadPayloadReferences(scope.orgId, candidates, known, {
      // Auto experiments' list groups and secure values need the attribute types too: read once, here.
      attributes: scope.hashSecureAttributes || scope.includeVisualExperiments || scope.includeRedirectExperiments,
      environment: scope.environment,
    }),
    scope.hashSecureAttributes ? getSecureAttributeSalt(scope.orgId) : undefined,
    // Metadata shows a project by its public id, as GrowthBook does.
    scope.includeProjectIdInMetadata ? projects.getMany(scope.orgId, [...new Set(candidates.map((entry) => entry.project).filter(Boolean))]) : [],
    loadAutoExperiments(scope),
    holdoutIds.length ? holdouts.getMany(scope.orgId, holdoutIds) : [],
  ]);
  // A deleted environment serves nothing; one limited to projects serves only those it shares with the connection.
  const narrowed = servedProjects(scope.projects, refs.environmentProjects);
  const servesNothing = !refs.environmentExists || !narrowed;
  if (servesNothing) entries = {};
  else scope = { ...scope, projects: narrowed };
  if (!capabilities.has('prerequisites')) entries = reducePrerequisites(entries, scope.projects);
  const served = entriesForProjects(entries, scope.projects);
  const live = assigned.filter((holdout) => holdoutApplies(holdout, scope.environment, scope.projects));
  // A schedule step that has passed changed the payload at that moment, whether or not anything was written.
  const at = now.toISOString();
  const boundaries = scheduleBoundaries(served);
  const passedSteps = boundaries.filter((date) => date <= at);
  const validUntil = boundaries.filter((date) => date > at).sort()[0];
  const all = [
    scope.dateUpdated,
    ...dates,
    ...refs.dates,
    ...passedSteps,
    ...(auto?.dates ?? []),
    ...assigned.map((holdout) => holdout.dateUpdated),
  ];
  const dateUpdated = all.reduce((latest, date) => (date > latest ? date : latest));
  const payload = sdkPayload(entries, {
    projects: scope.projects,
    refs: { ...refs, groupReferences: scope.savedGroupReferencesEnabled, holdouts: new Map(live.map((holdout) => [holdout.id, holdout])) },
    dateUpdated,
    now,
    includeRuleIds: scope.includeRuleIds,
    includeExperimentNames: scope.includeExperimentNames,
    secureAttributeSalt: salt,
    metadata: {
      includeProjectIdInMetadata: scope.includeProjectIdInMetadata,
      includeTagsInMetadata: scope.includeTagsInMetadata,
      includeCustomFieldsInMetadata: scope.includeCustomFieldsInMetadata,
      allowedCustomFieldsInMetadata: scope.allowedCustomFieldsInMetadata,
      projectIds: new Map(named.map((project) => [project.id, project.publicId || project.id])),
    },
  });
  if (scope.savedGroupReferencesEnabled) payload.savedGroups = savedGroupValues(payload.features, refs, salt);
  const experiments = auto && (servesNothing ? [] : autoExperimentsFor(auto, refs.attributes, scope, salt, now));
  return { payload: scrubForCapabilities(experiments ? { ...payload, experiments } : payload, capabilities), validUntil };
}

/**
 * What the connection's SDK can read. A connection stored before versions were kept here has no
 * `sdkVersion`: it reads as the newest version, which is what GrowthBook's API stores for a connection made without one.
 */
const scopeCapabilities = (scope: PayloadScope) =>
  connectionCapabilities({ languages: scope.languages, sdkVersion: scope.sdkVersion || latestSdkVersion(scope.languages?.[0]) });

/**
 * The SDK payload of a connection at `now`, as stored (through this container's cache of unchanged
 * shards): the versions (one Query, unless given), the changed shards' entries, and the references.
 */
export async function loadSdkPayload(scope: PayloadScope, now = new Date(), versions?: PayloadVersions): Promise<BuiltPayload> {
  const state = await payloadState(scope.orgId, scope.environment, versions ?? (await readPayloadVersions(scope.orgId, scope.environment)));
  return buildSdkPayload(scope, state.entries, state.dateUpdated ? [state.dateUpdated] : [], now);
}
