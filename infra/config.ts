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
  /**
   * Concurrency reserved for the public routes that anyone may call without a key: remote evaluation
   * (`POST /api/eval/{key}`) and the SDK payload (`GET /api/features/{key}`). Reserved concurrency is
   * also each one's ceiling, so a flood there cannot take the executions keyed routes need; it is
   * taken from the account's pool, which must keep 100 unreserved. 0 reserves nothing (no ceiling).
   */
  remoteEvalConcurrency: number;
  sdkPayloadConcurrency: number;
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
  /** Per-route throttling of the public SDK routes (payload, remote evaluation), apart from the keyed routes' limits above. */
  publicThrottleRateLimit: number;
  publicThrottleBurstLimit: number;
  /** A WAF web ACL on CloudFront, in its own stack in us-east-1 (`switchyard-<stage>-waf`); on by default. */
  waf: boolean;
  /** An existing CloudFront (global, us-east-1) web ACL to use instead of creating one; implies no WAF stack. */
  webAclArn?: string;
  /** WAF rate limit per `Authorization` header value (per API key), in requests per minute. */
  wafKeyRequestsPerMinute: number;
  /** WAF rate limit per client IP on the public SDK routes, in requests per minute. */
  wafPublicIpRequestsPerMinute: number;
  /** Rules of AWS's core rule set that only count instead of blocking (`SizeRestrictions_BODY` blocks bodies over 8 KB). */
  wafCountOnlyRules: string[];
  /**
   * Refuse requests on the `execute-api` host, so every request passes CloudFront (and the WAF). Needs
   * `originDomainName` and `originCertificateArn`: with the default endpoint off, CloudFront reaches the API
   * through that custom domain.
   */
  disableExecuteApiEndpoint: boolean;
  /**
   * API functions refuse (403) requests without CloudFront's origin secret header, so nobody bypasses
   * the WAF through the API's own hosts; off by default, because clients calling `ApiUrl` must move to `CdnUrl` first.
   */
  requireCloudFront: boolean;
  /** A custom domain of the API (regional), which CloudFront uses as its origin; its DNS record points at the `OriginDnsTarget` output. */
  originDomainName?: string;
  /** The ACM certificate of `originDomainName`, in the API's region. */
  originCertificateArn?: string;
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
    remoteEvalConcurrency: 50,
    sdkPayloadConcurrency: 50,
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
    publicThrottleRateLimit: 1000,
    publicThrottleBurstLimit: 2000,
    waf: true,
    wafKeyRequestsPerMinute: 600,
    wafPublicIpRequestsPerMinute: 3000,
    wafCountOnlyRules: ['SizeRestrictions_BODY'],
    disableExecuteApiEndpoint: false,
    requireCloudFront: false,
  };
}

// The values CloudWatch Logs accepts for a retention period.
const retentionDays = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

function positiveInteger(name: string, value: unknown): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`Context ${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return number;
}

function wholeNumber(name: string, value: unknown): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`Context ${name} must be a whole number (0 or more), got ${JSON.stringify(value)}`);
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

  const webAclArn = given('webAclArn') ? String(given('webAclArn')) : undefined;
  // A web ACL for CloudFront is global: it lives in us-east-1, whatever the API's region.
  if (webAclArn && !/^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/.+/.test(webAclArn)) {
    throw new Error(`Context webAclArn must be a CloudFront (global, us-east-1) web ACL ARN, got ${webAclArn}`);
  }
  const wafRate = (name: 'wafKeyRequestsPerMinute' | 'wafPublicIpRequestsPerMinute') => {
    const value = positiveInteger(name, given(name) ?? config[name]);
    // WAF's limits for a rate-based rule over a one-minute window.
    if (value < 10 || value > 2_000_000_000) throw new Error(`Context ${name} must be between 10 and 2000000000`);
    return value;
  };
  const disableExecuteApiEndpoint = boolean('disableExecuteApiEndpoint', given('disableExecuteApiEndpoint') ?? config.disableExecuteApiEndpoint);
  const originDomainName = given('originDomainName') ? String(given('originDomainName')) : undefined;
  const originCertificateArn = given('originCertificateArn') ? String(given('originCertificateArn')) : undefined;
  if (Boolean(originDomainName) !== Boolean(originCertificateArn)) throw new Error('Context originDomainName and originCertificateArn go together');
  // Without the default endpoint, CloudFront could reach the API only through a custom domain.
  if (disableExecuteApiEndpoint && !originDomainName) {
    throw new Error('Context disableExecuteApiEndpoint needs originDomainName and originCertificateArn (the custom domain CloudFront reaches the API by)');
  }

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
    remoteEvalConcurrency: wholeNumber('remoteEvalConcurrency', given('remoteEvalConcurrency') ?? config.remoteEvalConcurrency),
    sdkPayloadConcurrency: wholeNumber('sdkPayloadConcurrency', given('sdkPayloadConcurrency') ?? config.sdkPayloadConcurrency),
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
    publicThrottleRateLimit: positiveInteger('publicThrottleRateLimit', given('publicThrottleRateLimit') ?? config.publicThrottleRateLimit),
    publicThrottleBurstLimit: positiveInteger('publicThrottleBurstLimit', given('publicThrottleBurstLimit') ?? config.publicThrottleBurstLimit),
    waf: boolean('waf', given('waf') ?? config.waf),
    ...(webAclArn ? { webAclArn } : {}),
    wafKeyRequestsPerMinute: wafRate('wafKeyRequestsPerMinute'),
    wafPublicIpRequestsPerMinute: wafRate('wafPublicIpRequestsPerMinute'),
    wafCountOnlyRules: list(given('wafCountOnlyRules') ?? config.wafCountOnlyRules),
    disableExecuteApiEndpoint,
    requireCloudFront: boolean('requireCloudFront', given('requireCloudFront') ?? config.requireCloudFront),
    ...(originDomainName ? { originDomainName } : {}),
    ...(originCertificateArn ? { originCertificateArn } : {}),
  };
}
