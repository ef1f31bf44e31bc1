/**
 * The key layout of the single table. This file is the only place that spells key prefixes.
 *
 * | item                     | PK                  | SK                     | GSI1PK                  | GSI1SK              |
 * |--------------------------|---------------------|------------------------|-------------------------|---------------------|
 * | organization             | ORG#<org>           | ORG                    |                         |                     |
 * | resource of type T       | ORG#<org>           | T#<id>                 | ORG#<org>#T             | <dateCreated>#<id>  |
 * | member e-mail (unique)   | ORG#<org>           | MEMBER_EMAIL#<email>   |                         |                     |
 * | project publicId (unique)| ORG#<org>           | PROJECT_PUBLIC_ID#<publicId> |                   |                     |
 * | member id -> organization| MEMBER#<member>     | MEMBER                 |                         |                     |
 * | API key / access token   | APIKEY#<sha256>     | APIKEY                 | ORG#<org>#APIKEY        | <dateCreated>#<id>  |
 * | event (expires by TTL)   | ORG#<org>           | EVENT#<date>#<id>      |                         |                     |
 * | page index of type T     | ORG#<org>           | PAGEINDEX#T            |                         |                     |
 * | feature revision         | ORG#<org>           | FEATURE_REVISION#<feature>#<0-padded version> | ORG#<org>#FEATURE_REVISION | <date>#<feature>#<0-padded version> |
 * | saved group revision     | ORG#<org>           | SAVED_GROUP_REVISION#<group>#<0-padded version> | |             |
 * | SDK payload entry of a feature in an environment | ORG#<org> | SDK_ENTRY#<env>#<shard>#<feature> |  |     |
 * | SDK payload version of a shard | ORG#<org> | SDK_VERSION#<env>#<shard> |         |                     |
 * | SDK payload version of everything else (groups, experiments, attributes, environments, connections), 16 shards | ORG#<org> | SDK_VERSION!<shard> |  |  |
 * | every attribute's datatype (read with saved groups) | ORG#<org> | ATTRIBUTE_TYPES |  |             |
 * | SDK connection key (global: the public payload route has only the key) | SDKKEY#<key> | SDKKEY |   |             |
 * | ramp rule lock (one unfinished schedule per rule) | ORG#<org> | RAMP_RULE_LOCK#<feature>#<rule> |  |        |
 * | snapshot results (summary, one per metric) | ORG#<org> | SNAPSHOT_RESULT#<snapshot>#<SUMMARY or M#n> | |     |
 * | latest successful snapshot | ORG#<org>   | SNAPSHOT_LATEST#<experiment>#<dimension>#<phase> |      |          |
 * | launch checklist of the organization (`ORG`) or of a project | ORG#<org> | LAUNCH_CHECKLIST#ORG or LAUNCH_CHECKLIST#PROJECT#<project> | | |
 * | an experiment's completed manual launch checklist tasks | ORG#<org> | EXPERIMENT_CHECKLIST#<experiment> | |     |
 * | code references of a feature in a repo branch | ORG#<org> | CODE_REF#<feature>#<repo>#<branch> (URI-encoded) | ORG#<org>#CODE_REF | <dateCreated>#<id> |
 *
 * Every organization item carries `GSI2PK = ORGANIZATIONS`, `GSI2SK = <org>`: the list of organizations the
 * admin CLI's migrations Query (one created before this index gets its keys when migrated with `--org`).
 * Ramp schedules with pending work also carry `GSI2PK = RAMP_DUE` and `GSI2SK = <nextDueAt>` (the
 * advancer's sparse index, across organizations); a schedule with nothing pending has neither.
 * A schedule boundary (`ORG#<org>` / `SCHEDULE_BOUNDARY#<iso date>`: a moment a scheduled rule or
 * experiment changes some payload by itself) carries `GSI2PK = SCHEDULE_DUE`, `GSI2SK = <iso date>`
 * until the scheduler has fired it, and is then deleted. A staged experiment start has its own
 * boundary, `SCHEDULE_BOUNDARY#<iso date>#EXPERIMENT#<experiment>`, with the experiment id in `entityId`;
 * so has a draft's scheduled publish, `SCHEDULE_BOUNDARY#<iso date>#FEATURE_REVISION#<feature>#<version>`,
 * with the feature id in `entityId` and the revision number in `id`.
 * A running snapshot has a watch (`ORG#<org>` / `SNAPSHOT_WATCH#<snapshot>`, the snapshot id in `entityId`),
 * written with the snapshot and deleted with its outcome, that carries `GSI2PK = SNAPSHOT_DUE`,
 * `GSI2SK = <iso deadline>`: the scheduler ends a snapshot whose watch is past due as `error`.
 *
 * A stale page index carries `GSI2PK = PAGE_INDEX_DUE`, `GSI2SK = <when it may be rebuilt>`, with
 * `organization` and its entity type in `entityId`, until the scheduler has rebuilt it.
 *
 * Every item also has `entityType` and `version`. Only API keys (and the member pointer the admin
 * CLI uses to make tokens) are addressed without the organization, because a request must find
 * its organization from the key alone.
 */

export const entityTypes = [
  'ORG',
  'MEMBER',
  'MEMBER_EMAIL',
  'APIKEY',
  'ENVIRONMENT',
  'PROJECT',
  'SAVED_GROUP',
  'TEAM',
  'ATTRIBUTE',
  'ARCHETYPE',
  'SEGMENT',
  'HOLDOUT',
  'FACT_TABLE',
  'FACT_FILTER',
  'FACT_METRIC',
  'METRIC',
  'EXPERIMENT',
  'SNAPSHOT',
  'METRIC_ANALYSIS',
  'QUERY',
  'REPORT',
  'VISUAL_CHANGESET',
  'URL_REDIRECT',
  'EXPERIMENT_TEMPLATE',
  'DATA_SOURCE',
  'DASHBOARD',
  'FEATURE',
  'FEATURE_REVISION',
  'SDK_CONNECTION',
  'RAMP_SCHEDULE',
  'RAMP_SCHEDULE_TEMPLATE',
  'SCHEDULE_BOUNDARY',
  'SNAPSHOT_WATCH',
  'EVENT',
  'CODE_REF',
  'NAMESPACE',
  'CUSTOM_FIELD',
  'DIMENSION',
  'METRIC_GROUP',
  'SDK_ENTRY',
  'SDK_VERSION',
  'ATTRIBUTE_TYPES',
  'LAUNCH_CHECKLIST',
  'EXPERIMENT_CHECKLIST',
] as const;
export type EntityType = (typeof entityTypes)[number];

export interface ItemKey {
  PK: string;
  SK: string;
}

/** The types whose changes go through revisions (drafts, publishes), each stored next to its resource. */
export type RevisionOf = Extract<EntityType, 'FEATURE' | 'SAVED_GROUP'>;

export const orgPk = (orgId: string) => `ORG#${orgId}`;

export const keys = {
  organization: (orgId: string): ItemKey => ({ PK: orgPk(orgId), SK: 'ORG' }),
  entity: (orgId: string, type: EntityType, id: string): ItemKey => ({ PK: orgPk(orgId), SK: `${type}#${id}` }),
  entityPrefix: (type: EntityType) => `${type}#`,
  memberEmail: (orgId: string, email: string): ItemKey => ({
    PK: orgPk(orgId),
    SK: `MEMBER_EMAIL#${email.toLowerCase()}`,
  }),
  memberPointer: (memberId: string): ItemKey => ({ PK: `MEMBER#${memberId}`, SK: 'MEMBER' }),
  projectPublicId: (orgId: string, publicId: string): ItemKey => ({ PK: orgPk(orgId), SK: `PROJECT_PUBLIC_ID#${publicId}` }),
  apiKey: (hash: string): ItemKey => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' }),
  event: (orgId: string, dateCreated: string, id: string): ItemKey => ({ PK: orgPk(orgId), SK: `EVENT#${dateCreated}#${id}` }),
  pageIndex: (orgId: string, type: EntityType): ItemKey => ({ PK: orgPk(orgId), SK: `PAGEINDEX#${type}` }),
  listPartition: (orgId: string, type: EntityType) => `${orgPk(orgId)}#${type}`,
  listSort: (dateCreated: string, id: string) => `${dateCreated}#${id}`,
  /** A revision of a resource of type T (features, saved groups): `T_REVISION#<id>#<0-padded version>`. */
  revision: (orgId: string, type: RevisionOf, id: string, version: number): ItemKey => ({
    PK: orgPk(orgId),
    SK: `${type}_REVISION#${id}#${String(version).padStart(10, '0')}`,
  }),
  revisionPrefix: (type: RevisionOf, id: string) => `${type}_REVISION#${id}#`,
  /** Every revision of every resource of type T in the organization. */
  revisionTypePrefix: (type: RevisionOf) => `${type}_REVISION#`,
  featureRevision: (orgId: string, featureId: string, version: number): ItemKey => keys.revision(orgId, 'FEATURE', featureId, version),
  featureRevisionPrefix: (featureId: string): string => keys.revisionPrefix('FEATURE', featureId),
  sdkEntry: (orgId: string, environment: string, shard: string, featureId: string): ItemKey => ({
    PK: orgPk(orgId),
    SK: `SDK_ENTRY#${environment}#${shard}#${featureId}`,
  }),
  sdkEntryShardPrefix: (environment: string, shard: string) => `SDK_ENTRY#${environment}#${shard}#`,
  sdkEntryPrefix: (environment: string) => `SDK_ENTRY#${environment}#`,
  sdkVersion: (orgId: string, environment: string, shard: string): ItemKey => ({
    PK: orgPk(orgId),
    SK: `SDK_VERSION#${environment}#${shard}`,
  }),
  sdkVersionPrefix: (environment: string) => `SDK_VERSION#${environment}#`,
  /** The organization and environment (none: all of them) of an SDK payload version item's key, or undefined for any other key. */
  sdkVersionOf: (key: ItemKey): { orgId: string; environment?: string } | undefined => {
    if (!key.PK.startsWith('ORG#')) return undefined;
    // An organization-wide references version (`SDK_VERSION!<shard>`): every environment's payload reads it.
    if (key.SK.startsWith('SDK_VERSION!')) return { orgId: key.PK.slice('ORG#'.length) };
    if (!key.SK.startsWith('SDK_VERSION#')) return undefined;
    const rest = key.SK.slice('SDK_VERSION#'.length);
    // The shard is the last part; an environment id may not hold `#`, but cut at the last one anyway.
    return { orgId: key.PK.slice('ORG#'.length), environment: rest.slice(0, rest.lastIndexOf('#')) };
  },
  /** The organization's versions of what payloads read besides entries, one per shard; `SDK_VERSION` prefixes every version item's SK. */
  sdkReferencesVersion: (orgId: string, shard: string): ItemKey => ({ PK: orgPk(orgId), SK: `SDK_VERSION!${shard}` }),
  sdkReferencesVersionPrefix: () => 'SDK_VERSION!',
  sdkAllVersionsPrefix: () => 'SDK_VERSION',
  /** Every environment's shard versions (and, from before the organization-wide one, `refs` versions). */
  sdkVersionsPrefix: () => 'SDK_VERSION#',
  /** The former whole-payload items (`SDK_PAYLOAD#<env>#<chunk>`), which only the migration still reads, to delete them. */
  formerSdkPayloadPrefix: () => 'SDK_PAYLOAD#',
  /** Every attribute's datatype, in one item payloads read with their saved groups. */
  attributeTypes: (orgId: string): ItemKey => ({ PK: orgPk(orgId), SK: 'ATTRIBUTE_TYPES' }),
  /** The launch checklist of a project, or of the organization when `projectId` is ''. */
  launchChecklist: (orgId: string, projectId: string): ItemKey => ({
    PK: orgPk(orgId),
    SK: projectId ? `LAUNCH_CHECKLIST#PROJECT#${projectId}` : 'LAUNCH_CHECKLIST#ORG',
  }),
  /** The manual launch checklist tasks an experiment has marked complete. */
  experimentChecklist: (orgId: string, experimentId: string): ItemKey => ({ PK: orgPk(orgId), SK: `EXPERIMENT_CHECKLIST#${experimentId}` }),
  sdkConnectionKey: (key: string): ItemKey => ({ PK: `SDKKEY#${key}`, SK: 'SDKKEY' }),
  rampRuleLock: (orgId: string, featureId: string, ruleId: string): ItemKey => ({
    PK: orgPk(orgId),
    SK: `RAMP_RULE_LOCK#${featureId}#${ruleId}`,
  }),
  /** One part of a snapshot's results: `SUMMARY`, or `M#<metric index>` for one metric's aggregates and analyses. */
  snapshotResult: (orgId: string, snapshotId: string, part: string): ItemKey => ({ PK: orgPk(orgId), SK: `SNAPSHOT_RESULT#${snapshotId}#${part}` }),
  snapshotResultPrefix: (snapshotId: string) => `SNAPSHOT_RESULT#${snapshotId}#`,
  /** The latest successful snapshot of an experiment's dimension (`""` is overall) and phase. */
  latestSnapshot: (orgId: string, experimentId: string, dimension: string, phase: number): ItemKey => ({
    PK: orgPk(orgId),
    SK: `SNAPSHOT_LATEST#${experimentId}#${dimension}#${String(phase).padStart(4, '0')}`,
  }),
  latestSnapshotPrefix: (experimentId: string, dimension: string) => `SNAPSHOT_LATEST#${experimentId}#${dimension}#`,
  /**
   * The id of the code references of one feature in one repository branch: its parts URI-encoded
   * (they are free text) and joined so that all of a feature's references share a key prefix.
   */
  codeRefId: (feature: string, repo: string, branch: string) => [feature, repo, branch].map(encodeURIComponent).join('#'),
  codeRefFeaturePrefix: (feature: string) => `CODE_REF#${encodeURIComponent(feature)}#`,
  /** The one partition of the due-schedule index (GSI2): a schedule moves there only while it has pending work. */
  rampDuePartition: () => 'RAMP_DUE',
  scheduleBoundary: (orgId: string, at: string): ItemKey => ({ PK: orgPk(orgId), SK: `SCHEDULE_BOUNDARY#${at}` }),
  /** The boundary at which a staged experiment start fires (one per experiment and date). */
  experimentStartBoundary: (orgId: string, at: string, experimentId: string): ItemKey => ({
    PK: orgPk(orgId),
    SK: `SCHEDULE_BOUNDARY#${at}#EXPERIMENT#${experimentId}`,
  }),
  /** The boundary at which a draft's scheduled publish fires (one per revision and attempt date). */
  revisionPublishBoundary: (orgId: string, at: string, featureId: string, version: number): ItemKey => ({
    PK: orgPk(orgId),
    SK: `SCHEDULE_BOUNDARY#${at}#FEATURE_REVISION#${featureId}#${version}`,
  }),
  /** The boundary at which a saved-group draft's scheduled publish fires (one per revision and attempt date). */
  savedGroupRevisionPublishBoundary: (orgId: string, at: string, savedGroupId: string, version: number): ItemKey => ({
    PK: orgPk(orgId),
    SK: `SCHEDULE_BOUNDARY#${at}#SAVED_GROUP_REVISION#${savedGroupId}#${version}`,
  }),
  /** Whether a boundary's sort key (always in the due index, as a table key) is a saved-group draft's publish. */
  isSavedGroupRevisionPublishBoundary: (sk: string) => sk.includes('#SAVED_GROUP_REVISION#'),
  /** The watch on a running snapshot, deleted when the snapshot ends. */
  snapshotWatch: (orgId: string, snapshotId: string): ItemKey => ({ PK: orgPk(orgId), SK: `SNAPSHOT_WATCH#${snapshotId}` }),
  /** The partition of GSI2 holding the watches of running snapshots, sorted by deadline. */
  snapshotDuePartition: () => 'SNAPSHOT_DUE',
  /** The partition of GSI2 holding schedule boundaries not yet fired, sorted by date. */
  scheduleDuePartition: () => 'SCHEDULE_DUE',
  /** The partition of GSI2 holding stale page indexes, by when they may be rebuilt (page-index.ts). */
  pageIndexDuePartition: () => 'PAGE_INDEX_DUE',
  /** The partition of GSI2 listing every organization, by id. */
  organizationsPartition: () => 'ORGANIZATIONS',
};

/** Attributes that belong to storage and never appear in an API response. */
export const storageAttributes = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'entityType', 'version', 'listTags', 'expiresAt'] as const;
