import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, LoggingFormat, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { routes, unknownRouteHandler } from '../shared/contracts/registry';
import { tableSchema } from '../shared/db/table-schema';
import { handlerCode, runtime } from './bundling';
import {
  analyseSnapshotHandler,
  eventPublisherHandler,
  failSnapshotHandler,
  planSnapshotHandler,
  proxyPusherHandler,
  rampAdvancerHandler,
  tableAccessOf,
  tableReadActions,
  tableWriteActions,
  writeDeniedActions,
  writeDeniedLeadingKeys,
  type TableAccess,
} from './grants';
import type { SwitchyardConfig } from './config';

// Lambda allows 4 KB of environment per function; the other variables take a few hundred bytes.
const MAX_TENANTS_JSON = 3000;

/**
 * `ATHENA_TENANTS`: what each organization's data sources may name (shared/domain/athena-tenants.ts),
 * or nothing for a single-tenant deployment.
 */
export function athenaTenantsEnvironment(config: SwitchyardConfig): Record<string, string> {
  if (!config.athenaTenants) return {};
  const json = JSON.stringify(
    Object.fromEntries(Object.entries(config.athenaTenants).map(([orgId, { workGroups, databases, catalog }]) => [orgId, { workGroups, databases, catalog }])),
  );
  if (json.length > MAX_TENANTS_JSON) {
    throw new Error(`Context athenaTenants is ${json.length} characters as ATHENA_TENANTS, more than a function's environment holds (${MAX_TENANTS_JSON})`);
  }
  return { ATHENA_TENANTS: json };
}

export const architecture = Architecture.ARM_64;

export {
  analyseSnapshotHandler,
  eventPublisherHandler,
  failSnapshotHandler,
  planSnapshotHandler,
  proxyPusherHandler,
  rampAdvancerHandler,
  tableReadActions,
  tableWriteActions,
  type TableAccess,
} from './grants';

/** Every handler the app deploys; they are bundled together in one esbuild run. */
export const allHandlers = () => [
  unknownRouteHandler,
  ...routes.map((route) => route.handler),
  rampAdvancerHandler,
  eventPublisherHandler,
  proxyPusherHandler,
  planSnapshotHandler,
  analyseSnapshotHandler,
  failSnapshotHandler,
];

/** The service's name in logs (`service`) and metrics (the `Service` dimension). */
export const serviceName = 'switchyard';

/** The CloudWatch namespace of a stage's EMF metrics; the dashboard and alarms read it. */
export const metricsNamespace = (config: Pick<SwitchyardConfig, 'stage'>) => `Switchyard/${config.stage}`;

/**
 * The table's policy statements for one access level (infra/grants.ts): reads on the table and
 * every index by name (no wildcard), writes on the table, and for writers a Deny of writes to API
 * keys. The Deny matches a request if ANY of its leading keys is an API key's (ForAnyValue): a
 * BatchWriteItem carries one leading key per item, and ForAllValues would let a batch mixing an
 * organization item with an API key through (and would deny every request without the key).
 */
export function tableStatements(table: ITable, access: TableAccess): PolicyStatement[] {
  if (access === 'none') return [];
  const indexes: readonly { indexName: string }[] = tableSchema.indexes;
  const read = new PolicyStatement({
    actions: tableReadActions,
    resources: [table.tableArn, ...indexes.map((index) => `${table.tableArn}/index/${index.indexName}`)],
  });
  if (access === 'read') return [read];
  return [
    read,
    new PolicyStatement({ actions: tableWriteActions, resources: [table.tableArn] }),
    new PolicyStatement({
      effect: Effect.DENY,
      actions: writeDeniedActions,
      resources: [table.tableArn],
      conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': writeDeniedLeadingKeys } },
    }),
  ];
}

export interface ServiceFunctionProps
  extends Pick<NodejsFunctionProps, 'deadLetterQueue' | 'retryAttempts' | 'maxEventAge' | 'reservedConcurrentExecutions'> {
  /** Handler file, relative to the repository root. */
  entry: string;
  description: string;
  config: SwitchyardConfig;
  /** Its table access is the one infra/grants.ts decides for `entry`. */
  table: ITable;
  environment?: Record<string, string>;
  /** Defaults to the configured API timeout. */
  timeout?: Duration;
  /** Why the role holds actions on `*` besides X-Ray's, when something else grants such actions. */
  otherUnscopedActions?: string;
}

/**
 * A Lambda function of the service: nodejs22.x on ARM64, bundled with esbuild (minified, SDK
 * included, source maps that the logger applies to logged stacks: shared/source-maps.ts), traced,
 * with its own log group and a role that holds only that log group, X-Ray and the table access
 * infra/grants.ts decides for its handler. Memory, timeout, logging and environment are set here and nowhere else.
 */
export class ServiceFunction extends NodejsFunction {
  /** The handler file, relative to the repository root. */
  readonly entry: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { config } = props;
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: config.logRetentionDays });
    // Our own role instead of the default one, which carries a managed policy that may create log groups anywhere.
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    super(scope, id, {
      // Bundled by infra/bundling.ts (one esbuild run for all functions) rather than by
      // NodejsFunction's own bundling, which spawns esbuild through npx once per function.
      code: handlerCode(props.entry, allHandlers),
      handler: 'index.handler',
      description: props.description,
      runtime,
      architecture,
      memorySize: config.memoryMb,
      timeout: props.timeout ?? Duration.seconds(config.timeoutSeconds),
      tracing: Tracing.ACTIVE,
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      // Lambda drops JSON log lines below this level. Our logger already drops lines below LOG_LEVEL,
      // except the metric lines (INFO whatever LOG_LEVEL says: shared/metrics.ts), so Lambda's filter
      // stops at INFO; it is DEBUG only when the logger is.
      applicationLogLevelV2: config.logLevel === 'DEBUG' ? ApplicationLogLevel.DEBUG : ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.INFO,
      deadLetterQueue: props.deadLetterQueue,
      retryAttempts: props.retryAttempts,
      maxEventAge: props.maxEventAge,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: {
        TABLE_NAME: config.tableName,
        LOG_LEVEL: config.logLevel,
        POWERTOOLS_SERVICE_NAME: serviceName,
        API_ALLOW_SKIP_PAGINATION: String(config.allowSkipPagination),
        // Metrics as EMF log lines (shared/metrics.ts), one namespace per stage so stages never mix.
        METRICS: 'emf',
        METRICS_NAMESPACE: metricsNamespace(config),
        // Lambda has no DuckDB: data sources must be athena (see shared/domain/data-sources.ts).
        ANALYSIS_ENGINES: 'athena',
        ...athenaTenantsEnvironment(config),
        ...props.environment,
      },
    });
    this.entry = props.entry;
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
    for (const statement of tableStatements(props.table, tableAccessOf(props.entry))) role.addToPolicy(statement);

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: [
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
        props.otherUnscopedActions,
      ]
        .filter(Boolean)
        .join(' '),
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'nodejs22.x is the runtime the service is built and tested on (Node 22 LTS); moving to a newer runtime is a deliberate upgrade, not a synth-time default.',
    });
  }
}
