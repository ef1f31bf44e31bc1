import type { Node } from 'constructs';

/** Log levels the handlers' Powertools Logger understands. */
export const logLevels = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof logLevels)[number];

/** What one organization's snapshot queries may touch in a multi-tenant deployment (`athenaTenants`). */
export interface AthenaTenant {
  workGroups: string[];
  databases: string[];
  /** S3 locations (`s3://bucket/prefix/`) of the tenant's tables' data. */
  dataLocations: string[];
  /** The Glue data catalog; the deployment's `athenaCatalog` by default. */
  catalog: string;
}

/** How one deployment is configured; every field can be set with `-c <name>=<value>` or in cdk.json's `context`. */
export interface SwitchyardConfig {
  /** Deployment name, part of every stack name (`switchyard-<stage>-api`). */
  stage: string;
  /** Physical name of the DynamoDB table; the admin CLI reaches it through `TABLE_NAME`. */
  tableName: string;
  /** Name of the EventBridge bus that receives the service's events. */
  eventBusName: string;
  logLevel: LogLevel;
  /** Lets `GET /features?skipPagination=true` return every match (`API_ALLOW_SKIP_PAGINATION`). */
  allowSkipPagination: boolean;
  /** Browser origins allowed to call the public routes (SDK payload); comma separated on the command line. */
  corsOrigins: string[];
  /** Stage throttling: steady requests per second, and the burst above it. */
  throttleRateLimit: number;
  throttleBurstLimit: number;
  /** Memory and timeout of every API function. */
  memoryMb: number;
  timeoutSeconds: number;
  /** Retention of function and access logs, in days (a value CloudWatch Logs accepts). */
  logRetentionDays: number;
  /** Alarm when the p95 latency of the API stays above this many milliseconds. */
  latencyAlarmMs: number;
  /** Alarm when this percentage of requests or more end in a 5xx. */
  serverErrorAlarmPercent: number;
  /** SNS topic every alarm notifies; none by default (alarms are visible in CloudWatch only). */
  alarmTopicArn?: string;
  /** Athena workgroups the snapshot state machine may run queries in (data sources' `params.workGroup`). */
  athenaWorkGroups: string[];
  /** Glue data catalog the queries read (data sources' `params.catalog`). */
  athenaCatalog: string;
  /** Glue databases of that catalog the queries may read (data sources' `params.database`); none by default. */
  athenaDatabases: string[];
  /** S3 locations (`s3://bucket/prefix/`) of the tables' data, which the queries may read; none by default. */
  athenaDataLocations: string[];
  /**
   * Where Athena writes query results (`s3://bucket/prefix/`); by default a bucket the analysis
   * stack creates, whose results expire after a week.
   */
  athenaOutputLocation?: string;
  /**
   * Confines each organization's Athena queries (JSON: orgId → {workGroups, databases, dataLocations,
   * catalog?}): each listed organization gets its own role, which its snapshots' queries run with, and
   * its data sources may name only its own workgroups, databases and catalog; an organization not
   * listed cannot use Athena. The deployment-wide athenaWorkGroups, athenaDatabases and
   * athenaDataLocations are then unused. Unset: single-tenant, every organization shares one role.
   */
  athenaTenants?: Record<string, AthenaTenant>;
  /** A snapshot run that takes longer is stopped and its snapshot marked `error`. */
  analysisTimeoutMinutes: number;
  /** CloudFront Origin Shield in this region in front of the API (for the SDK payload); none by default. */
  originShieldRegion?: string;
}

/** The defaults, documented in docs/deploy.md. */
export function defaultConfig(stage = 'prod'): SwitchyardConfig {
  return {
    stage,
    tableName: `switchyard-${stage}`,
    eventBusName: `switchyard-${stage}`,
    logLevel: 'INFO',
    allowSkipPagination: false,
    corsOrigins: ['*'],
    throttleRateLimit: 100,
    throttleBurstLimit: 200,
    memoryMb: 1024,
    timeoutSeconds: 10,
    logRetentionDays: 30,
    latencyAlarmMs: 1000,
    serverErrorAlarmPercent: 1,
    athenaWorkGroups: ['primary'],
    athenaCatalog: 'AwsDataCatalog',
    athenaDatabases: [],
    athenaDataLocations: [],
    analysisTimeoutMinutes: 30,
  };
}

// The values CloudWatch Logs accepts for a retention period.
const retentionDays = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

function positiveInteger(name: string, value: unknown): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`Context ${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return number;
}

function boolean(name: string, value: unknown): boolean {
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw new Error(`Context ${name} must be true or false, got ${JSON.stringify(value)}`);
}

function list(value: unknown): string[] {
  return (Array.isArray(value) ? value.map(String) : String(value).split(',')).map((item) => item.trim()).filter(Boolean);
}

const s3Location = /^s3:\/\/[a-z0-9.-]{3,63}(\/.*)?$/;

function s3Locations(name: string, value: unknown): string[] {
  const locations = list(value);
  const bad = locations.find((location) => !s3Location.test(location));
  if (bad) throw new Error(`Context ${name} must be S3 URIs such as s3://bucket/prefix/, got ${bad}`);
  return locations;
}

function athenaTenants(value: unknown, defaultCatalog: string): Record<string, AthenaTenant> {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error('Context athenaTenants must be JSON: {"<orgId>": {"workGroups": [...], "databases": [...], "dataLocations": [...]}}');
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('Context athenaTenants must be an object of orgId → tenant');
  const tenants = Object.entries(parsed as Record<string, Record<string, unknown>>).map(([orgId, tenant]): [string, AthenaTenant] => {
    // Organization ids become construct ids and S3 key prefixes.
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(orgId)) throw new Error(`Context athenaTenants: ${orgId} is not an organization id`);
    const lists = { workGroups: list(tenant?.workGroups ?? []), databases: list(tenant?.databases ?? []) };
    if (!lists.workGroups.length) throw new Error(`Context athenaTenants: ${orgId} needs at least one workGroup`);
    return [
      orgId,
      { ...lists, dataLocations: s3Locations(`athenaTenants.${orgId}.dataLocations`, tenant?.dataLocations ?? []), catalog: String(tenant?.catalog ?? defaultCatalog) },
    ];
  });
  if (!tenants.length) throw new Error('Context athenaTenants must list at least one organization (leave it unset for a single-tenant deployment)');
  return Object.fromEntries(tenants);
}

/**
 * The configuration from CDK context: defaults for what is not set. Values given with `-c` arrive
 * as strings, so numbers, booleans and lists are parsed here, and nonsense fails the synth early.
 */
export function readConfig(node: Node): SwitchyardConfig {
  const stage = String(node.tryGetContext('stage') ?? 'prod');
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) throw new Error(`Context stage must be lower-case letters, digits and dashes, got ${stage}`);
  const config = defaultConfig(stage);
  const given = (name: keyof SwitchyardConfig) => node.tryGetContext(name) as unknown;

  const logLevel = String(given('logLevel') ?? config.logLevel).toUpperCase();
  if (!logLevels.includes(logLevel as LogLevel)) throw new Error(`Context logLevel must be one of ${logLevels.join(', ')}`);
  const origins = given('corsOrigins') ?? config.corsOrigins;
  const analysisTimeoutMinutes = positiveInteger('analysisTimeoutMinutes', given('analysisTimeoutMinutes') ?? config.analysisTimeoutMinutes);
  // Step Functions standard workflows run at most a year; a snapshot that long is a mistake.
  if (analysisTimeoutMinutes > 24 * 60) throw new Error('Context analysisTimeoutMinutes must be at most 1440 (a day)');
  const athenaOutputLocation = given('athenaOutputLocation') ? s3Locations('athenaOutputLocation', given('athenaOutputLocation')) : [];
  if (athenaOutputLocation.length > 1) throw new Error('Context athenaOutputLocation must be one S3 URI');
  const logRetention = positiveInteger('logRetentionDays', given('logRetentionDays') ?? config.logRetentionDays);
  if (!retentionDays.includes(logRetention)) throw new Error(`Context logRetentionDays must be one of ${retentionDays.join(', ')}`);
  const memoryMb = positiveInteger('memoryMb', given('memoryMb') ?? config.memoryMb);
  if (memoryMb < 128 || memoryMb > 10240) throw new Error('Context memoryMb must be between 128 and 10240');
  const serverErrorAlarmPercent = Number(given('serverErrorAlarmPercent') ?? config.serverErrorAlarmPercent);
  if (!(serverErrorAlarmPercent > 0 && serverErrorAlarmPercent <= 100)) throw new Error('Context serverErrorAlarmPercent must be above 0 and at most 100');
  const timeoutSeconds = positiveInteger('timeoutSeconds', given('timeoutSeconds') ?? config.timeoutSeconds);
  // API Gateway gives up on an integration after 30 seconds.
  if (timeoutSeconds > 29) throw new Error('Context timeoutSeconds must be at most 29 (API Gateway waits 30 seconds)');

  return {
    stage,
    tableName: String(given('tableName') ?? config.tableName),
    eventBusName: String(given('eventBusName') ?? config.eventBusName),
    logLevel: logLevel as LogLevel,
    allowSkipPagination: boolean('allowSkipPagination', given('allowSkipPagination') ?? config.allowSkipPagination),
    corsOrigins: (Array.isArray(origins) ? origins.map(String) : String(origins).split(','))
      .map((origin) => origin.trim())
      .filter(Boolean),
    throttleRateLimit: positiveInteger('throttleRateLimit', given('throttleRateLimit') ?? config.throttleRateLimit),
    throttleBurstLimit: positiveInteger('throttleBurstLimit', given('throttleBurstLimit') ?? config.throttleBurstLimit),
    memoryMb,
    timeoutSeconds,
    logRetentionDays: logRetention,
    latencyAlarmMs: positiveInteger('latencyAlarmMs', given('latencyAlarmMs') ?? config.latencyAlarmMs),
    serverErrorAlarmPercent,
    ...(given('alarmTopicArn') ? { alarmTopicArn: String(given('alarmTopicArn')) } : {}),
    athenaWorkGroups: list(given('athenaWorkGroups') ?? config.athenaWorkGroups),
    athenaCatalog: String(given('athenaCatalog') ?? config.athenaCatalog),
    athenaDatabases: list(given('athenaDatabases') ?? config.athenaDatabases),
    athenaDataLocations: s3Locations('athenaDataLocations', given('athenaDataLocations') ?? config.athenaDataLocations),
    ...(athenaOutputLocation.length ? { athenaOutputLocation: athenaOutputLocation[0] } : {}),
    ...(given('athenaTenants') ? { athenaTenants: athenaTenants(given('athenaTenants'), String(given('athenaCatalog') ?? config.athenaCatalog)) } : {}),
    analysisTimeoutMinutes,
    ...(given('originShieldRegion') ? { originShieldRegion: String(given('originShieldRegion')) } : {}),
  };
}
