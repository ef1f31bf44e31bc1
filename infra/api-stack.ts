import { CfnOutput, Duration, Names, NestedStack, RemovalPolicy, SecretValue, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  type CfnStage,
  CorsHttpMethod,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { ORIGIN_VERIFY_ENV, ORIGIN_VERIFY_HEADER } from '../shared/api/origin';
import { routes, unknownRouteHandler, type Route } from '../shared/contracts/registry';
import { getFeaturesForSdk, postRemoteEval } from '../shared/contracts/sdk-payload';
import { fullPath, type EndpointSpec } from '../shared/contracts/spec';
import { alarm } from './alarms';
import type { SwitchyardConfig } from './config';
import { cors } from './cors';
import { glueCatalogActions, screenshotBucketActions } from './grants';
import { acknowledgeWildcards } from './nag';
import { ServiceFunction } from './lambda';
import { PayloadCdn } from './payload-cdn';

export interface ApiStackProps extends StackProps {
  config: SwitchyardConfig;
  table: ITable;
  /** The state machine that computes snapshots; the snapshot request starts it. */
  snapshotStateMachine?: IStateMachine;
  /** The CloudFront web ACL (us-east-1) to attach to the distribution: an ARN, or a token that resolves to one. */
  webAclArn?: string;
}

/** The public SDK routes: called by every SDK, without a key, so throttled apart from the keyed routes. */
export const publicSdkSpecs = [getFeaturesForSdk, postRemoteEval];

/** The endpoint that starts an experiment's snapshot runs. */
export const snapshotStarter = 'postExperimentSnapshot';
/** The endpoint that starts a monitored ramp's snapshot now (the scheduler starts the others). */
export const rampSnapshotStarter = 'refreshMonitoringRampSchedule';
/**
 * The endpoints that start runs of the snapshot state machine (an experiment's, a report's or a monitored ramp's
 * snapshot, a fact metric's analysis): they alone may start it.
 */
export const snapshotStarters = [snapshotStarter, 'postReport', 'postReportRefresh', rampSnapshotStarter, 'postFactMetricAnalysis'];

/** `saved-groups` → `SavedGroups`, for construct ids. */
const pascal = (name: string) => name.replace(/(^|[-_/])([a-z0-9])/g, (_match, _separator, c: string) => c.toUpperCase());

/** `functions/<folder>/<file>.ts` → `<folder>`: routes are grouped the way the registry groups handlers. */
const folderOf = (route: Route) => route.handler.split('/')[1];

/** One JSON line per request; `lambdaRequestId` finds the function's log lines for it. */
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    lambdaRequestId: '$context.integration.requestId',
    time: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    method: '$context.httpMethod',
    path: '$context.path',
    routeKey: '$context.routeKey',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integration.latency',
    integrationStatus: '$context.integration.status',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/** The reserved concurrency of the public routes anyone may call, by operationId (see SwitchyardConfig). */
const publicConcurrency = (config: SwitchyardConfig): Record<string, number> => ({
  [postRemoteEval.operationId]: config.remoteEvalConcurrency,
  [getFeaturesForSdk.operationId]: config.sdkPayloadConcurrency,
});

/**
 * The HTTP API: one route and one function per registry entry, a `$default` route for unknown
 * paths, access logs, stage and per-route throttling, and alarms. Each handler folder (one resource) is a nested
 * stack, because ~100 endpoints at seven resources each exceed CloudFormation's 500 per stack.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** Every endpoint's function by operationId. */
  readonly functions = new Map<string, ServiceFunction>();
  /** CloudFront in front of the API, caching the SDK payload at the edge. */
  readonly cdn: PayloadCdn;
  /** Variation screenshots' images (shared/store/screenshot-objects.ts); only the screenshot routes' functions reach it. */
  readonly screenshots: Bucket;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { config, table } = props;

    this.api = new HttpApi(this, 'Api', {
      apiName: `switchyard-${config.stage}`,
      description: 'Switchyard feature flags and experimentation API',
      createDefaultStage: false,
      // When it is off, only the custom origin domain (which CloudFront uses) reaches the API.
      disableExecuteApiEndpoint: config.disableExecuteApiEndpoint,
      // HTTP APIs configure CORS for the whole API, not per route: see infra/cors.ts.
      corsPreflight: {
        allowOrigins: config.corsOrigins,
        allowMethods: cors.methods.map((method) => CorsHttpMethod[method]),
        allowHeaders: cors.headers,
        exposeHeaders: cors.exposeHeaders,
        maxAge: Duration.seconds(cors.maxAgeSeconds),
      },
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: config.logRetentionDays });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      // `$default` serves paths as they are: https://<host>/api/v1/..., like GrowthBook.
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.throttleRateLimit, burstLimit: config.throttleBurstLimit },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: accessLogFormat },
    });

    // Keyed routes keep the stage default above; the public SDK routes, which whole SDK fleets call
    // (the payload mostly through CloudFront's cache, remote evaluation never cached), get their own limits.
    const routeKeys = publicSdkSpecs.map((spec) => `${spec.method} ${fullPath(spec)}`);
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      routeKeys.map((key) => [key, { ThrottlingRateLimit: config.publicThrottleRateLimit, ThrottlingBurstLimit: config.publicThrottleBurstLimit }]),
    );

    // A value only CloudFront sends: with requireCloudFront, the functions refuse requests without it.
    const originSecret = config.requireCloudFront
      ? new Secret(this, 'OriginSecret', {
          description: `Switchyard ${config.stage}: the header value CloudFront sends the API, proving a request came through it (and its WAF)`,
          generateSecretString: { passwordLength: 48, excludePunctuation: true },
        })
      : undefined;
    if (originSecret) {
      Validations.of(originSecret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: 'CloudFront and the functions read the value at deploy time; to rotate it, put a new value and redeploy the API stack.',
      });
    }
    const originEnvironment: Record<string, string> = originSecret
      ? { [ORIGIN_VERIFY_ENV]: SecretValue.secretsManager(originSecret.secretArn).unsafeUnwrap() }
      : {};

    this.screenshots = new Bucket(this, 'Screenshots', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // Experiments list these images: kept when the stack goes, like the table.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.screenshots).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only the three screenshot functions can read or write it, under keys that begin with the organization of the API key that called them; their calls are in CloudTrail and in the API access logs.',
    });

    const unknownRoute = new ServiceFunction(this, 'UnknownRoute', {
      entry: unknownRouteHandler,
      description: 'Any path no route matches: 404 Unknown API endpoint',
      config,
      table,
    });
    new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('UnknownRouteIntegration', unknownRoute),
    });

    const byFolder = new Map<string, Route[]>();
    for (const route of routes) byFolder.set(folderOf(route), [...(byFolder.get(folderOf(route)) ?? []), route]);
    for (const [folder, group] of byFolder) {
      const nested = new NestedStack(this, pascal(folder), { description: `Switchyard ${folder} endpoints` });
      for (const route of group) this.addEndpoint(nested, route, props, originEnvironment);
      // Route settings name routes by key: the stage is updated once the routes they name exist.
      if (group.some((route) => publicSdkSpecs.includes(route.spec as never))) this.stage.node.addDependency(nested);
    }

    // Every route is authorized in its function (API keys, roles), and a few are public by design.
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'GrowthBook-compatible API keys (Bearer or Basic) are verified by each function through the shared endpoint() middleware, with per-role permissions from the spec; the SDK payload and the OpenAPI document are public by design.',
    });

    this.addAlarms(config);
    let originDomain: DomainName | undefined;
    if (config.originDomainName && config.originCertificateArn) {
      originDomain = new DomainName(this, 'OriginDomain', {
        domainName: config.originDomainName,
        certificate: Certificate.fromCertificateArn(this, 'OriginCertificate', config.originCertificateArn),
      });
      new ApiMapping(this, 'OriginMapping', { api: this.api, domainName: originDomain, stage: this.stage });
      new CfnOutput(this, 'OriginDnsTarget', {
        value: originDomain.regionalDomainName,
        description: `Point ${config.originDomainName} here (CNAME or Route 53 alias): CloudFront reaches the API by that name`,
      });
    }
    this.cdn = new PayloadCdn(this, 'Cdn', {
      api: this.api,
      originShieldRegion: config.originShieldRegion,
      originDomainName: originDomain?.name,
      originHeaders: originSecret ? { [ORIGIN_VERIFY_HEADER]: SecretValue.secretsManager(originSecret.secretArn).unsafeUnwrap() } : undefined,
      webAclArn: props.webAclArn,
    });
    if (!config.disableExecuteApiEndpoint) {
      new CfnOutput(this, 'ApiUrl', {
        value: `${this.stage.url}api/v1`,
        description: config.requireCloudFront
          ? 'Base URL of the API on its own host: refuses requests (use CdnUrl)'
          : 'Base URL of the API (CdnUrl passes the WAF)',
      });
    }
  }

  private addEndpoint(
    scope: Construct,
    route: Route,
    { config, table, snapshotStateMachine }: ApiStackProps,
    originEnvironment: Record<string, string>,
  ) {
    const { spec } = route;
    const id = pascal(spec.operationId);
    const startsSnapshots = snapshotStarters.includes(spec.operationId) && snapshotStateMachine;
    const reserved = publicConcurrency(config)[spec.operationId];
    const fn = new ServiceFunction(scope, id, {
      entry: route.handler,
      description: `${spec.method} ${fullPath(spec)}`,
      config,
      table,
      // 0 means no reservation: Lambda would read a reserved 0 as "never run".
      ...(reserved ? { reservedConcurrentExecutions: reserved } : {}),
      environment: {
        ...originEnvironment,
        // The state machine's timeout, from which a snapshot's watch deadline is set (shared/store/snapshots.ts).
        ...(startsSnapshots
          ? { SNAPSHOT_STATE_MACHINE_ARN: snapshotStateMachine.stateMachineArn, SNAPSHOT_TIMEOUT_MS: String(config.analysisTimeoutMinutes * 60_000) }
          : {}),
      },
    });
    if (startsSnapshots) snapshotStateMachine.grantStartExecution(fn);
    const glueActions = glueCatalogActions[spec.operationId];
    if (glueActions) {
      // The databases the deployment's data sources may name: every tenant's, or the single tenant's.
      const databases = [...new Set(config.athenaTenants ? Object.values(config.athenaTenants).flatMap((t) => t.databases) : config.athenaDatabases)];
      if (!config.athenaTenants) fn.addEnvironment('ATHENA_DATABASES', JSON.stringify(config.athenaDatabases));
      if (databases.length) {
        const arn = (resource: string, resourceName?: string) => Stack.of(fn).formatArn({ service: 'glue', resource, resourceName });
        const tables = databases.map((database) => arn('table', `${database}/*`));
        fn.addToRolePolicy(
          new PolicyStatement({ actions: glueActions, resources: [arn('catalog'), ...databases.map((database) => arn('database', database)), ...tables] }),
        );
        acknowledgeWildcards(fn.role!, tables, "Each table of the deployment's Glue databases (athenaDatabases, athenaTenants): tables are found when listed.");
      }
    }
    const screenshotActions = screenshotBucketActions[spec.operationId];
    if (screenshotActions) {
      fn.addEnvironment('SCREENSHOT_BUCKET', this.screenshots.bucketName);
      fn.addToRolePolicy(new PolicyStatement({ actions: screenshotActions, resources: [this.screenshots.arnForObjects('*')] }));
      // The function's nested stack receives the ARN as a parameter CDK names `referenceto<bucket's unique id>Arn`, which is how cdk-nag names it.
      const objects = `<referenceto${Names.nodeUniqueId(this.screenshots.node.defaultChild!.node)}Arn>/*`;
      Validations.of(fn.role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${objects}]`,
        reason:
          'The function names each image itself (<organization>/<experiment>/<variation>/<file>): it holds only the object actions its route needs, on the screenshot bucket alone.',
      });
    }
    new HttpRoute(scope, `${id}Route`, {
      httpApi: this.api,
      routeKey: HttpRouteKey.with(fullPath(spec), HttpMethod[spec.method]),
      integration: new HttpLambdaIntegration(`${id}Integration`, fn),
    });
    this.functions.set(spec.operationId, fn);
  }

  private addAlarms(config: SwitchyardConfig) {
    const period = Duration.minutes(5);
    alarm(this, 'ServerErrorRateAlarm', config, {
      metric: new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: this.stage.metricServerError({ statistic: 'Sum', period }),
          requests: this.stage.metricCount({ statistic: 'Sum', period }),
        },
        period,
        label: '5xx responses (%)',
      }),
      threshold: config.serverErrorAlarmPercent,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `${config.serverErrorAlarmPercent}% or more of API requests end in a 5xx`,
    });
    alarm(this, 'LatencyAlarm', config, {
      metric: this.stage.metricLatency({ statistic: 'p95', period }),
      threshold: config.latencyAlarmMs,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `p95 API latency at or above ${config.latencyAlarmMs} ms`,
    });
  }
}
