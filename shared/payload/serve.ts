import { NotFoundError } from '../errors';
import { getSecureAttributeSalt } from '../store/organizations';
import { holdouts } from '../store/holdouts';
import { projects } from '../store/projects';
import { findSdkKey, type SdkKeyRecord } from '../store/sdk-connections';
import { autoExperimentsFor, loadAutoExperiments } from './auto-experiment-sources';
import { sdkPayloadBody } from './body';
import { entriesForProjects, scheduleBoundaries } from './entries';
import { servedProjects } from './environment-inheritance';
import { holdoutApplies } from './holdouts';
import { reducePrerequisites } from './prerequisites';
import { loadPayloadReferences } from './references';
import { sdkPayload } from './rules';
import { savedGroupValues } from './saved-group-references';
import { metadataOptions, type PayloadScope } from './scope';
import { capabilitySettings, scrubForCapabilities } from './scrub';
import { connectionCapabilities, latestSdkVersion } from './sdk-versions';
import { payloadState, readPayloadVersions, type PayloadVersions } from './state';
import type { KnownReferences, PayloadEntry, SdkPayload } from './types';
import { putRequestMetric } from '../metrics';

/**
 * The read entry point of the SDK payload: a connection's payload built from its environment's
 * stored entries (state.ts) and the references they name, read fresh (references.ts), and the body a
 * client key is served, kept per warm container. Per client key the container keeps the last body
 * it built, with its ETag, and the payload versions of its environment it was built at. A request
 * reads those versions (one Query); when they are unchanged the body is served as it is. Nothing is
 * rebuilt per request. When they moved, the key is read again and the body rebuilt (re-reading only
 * changed shards). With `PAYLOAD_CACHE_MS`, a body checked less than that long ago is served without
 * any read. The HTTP answer (304, compression, headers) is http.ts's.
 */

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
    metadata: metadataOptions(scope, new Map(named.map((project) => [project.id, project.publicId || project.id]))),
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

/** A connection's body as this container serves it, while the versions of its environment hold. */
export interface ServedPayload {
  record: SdkKeyRecord;
  /** The environment's payload versions the body was built at. */
  versions: string;
  /** When the body changes by itself (a scheduled rule's next step): rebuilt from then on. */
  validUntil: number;
  etag: string;
  json: string;
  /** Compressed forms, base64 as API Gateway takes them, made on first demand (by http.ts). */
  gzip?: string;
  br?: string;
  checkedAt: number;
}

const served = new Map<string, ServedPayload>();
const MAX_SERVED = 1000;

async function build(record: SdkKeyRecord, versions: PayloadVersions, now: number): Promise<ServedPayload> {
  const { key: _key, orgId: _org, connectionId: _id, encryptPayload, encryptionKey, ...scope } = record;
  const { payload, validUntil } = await loadSdkPayload({ orgId: record.orgId, ...scope }, new Date(now), versions);
  const { body, etag } = sdkPayloadBody(payload, { encryptionKey: encryptPayload ? encryptionKey : undefined });
  return {
    record,
    versions: versions.token,
    validUntil: validUntil ? Date.parse(validUntil) : Infinity,
    etag,
    json: JSON.stringify(body),
    checkedAt: now,
  };
}

const notFound = (key: string) => new NotFoundError(`No SDK connection has the key ${key}`);

/**
 * The body for a client key: the cached one while the versions of its environment hold, otherwise a new
 * build. Changes to a connection move those versions in their own transaction, so unchanged
 * versions also prove the key's settings unchanged: a warm request is that one Query. Raises
 * NotFoundError when no connection has the key (or, with `orgId`, when it belongs to another organization).
 */
export async function servedPayload(key: string, orgId?: string): Promise<ServedPayload> {
  const cached = served.get(key);
  const now = Date.now();
  const cacheMs = Number(process.env.PAYLOAD_CACHE_MS ?? 0);
  const usable = cached && now < cached.validUntil ? cached : undefined;
  const fresh = usable && cacheMs > 0 && now - usable.checkedAt < cacheMs;
  let versions = cached && !fresh ? await readPayloadVersions(cached.record.orgId, cached.record.environment) : undefined;
  if (usable && (fresh || versions!.token === usable.versions)) {
    if (orgId && usable.record.orgId !== orgId) throw notFound(key);
    if (!fresh) usable.checkedAt = now;
    putRequestMetric('PayloadCacheHit', 1); // served from this container's cache: Average is the hit rate
    return usable;
  }
  const record = await findSdkKey(key);
  if (!record || (orgId && record.orgId !== orgId)) {
    served.delete(key);
    throw notFound(key);
  }
  const sameTarget = cached && cached.record.orgId === record.orgId && cached.record.environment === record.environment;
  if (!sameTarget || !versions) versions = await readPayloadVersions(record.orgId, record.environment);
  const next = await build(record, versions, now);
  putRequestMetric('PayloadCacheHit', 0);
  served.delete(key);
  served.set(key, next);
  if (served.size > MAX_SERVED) served.delete(served.keys().next().value!);
  return next;
}
