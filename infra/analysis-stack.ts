import { Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { ArnPrincipal, CompositePrincipal, PolicyStatement, Role, type IRole } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import {
  CustomState,
  DefinitionBody,
  Fail,
  LogLevel,
  Map as MapState,
  JsonPath,
  Pass,
  StateMachine,
  Succeed,
  TaskInput,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { alarm } from './alarms';
import { acknowledgeWildcards } from './nag';
import type { AthenaTenant, SwitchyardConfig } from './config';
import { analyseSnapshotHandler, failSnapshotHandler, planSnapshotHandler, ServiceFunction } from './lambda';

export interface AnalysisStackProps extends StackProps {
  config: SwitchyardConfig;
  table: ITable;
}

/** `s3://bucket/prefix/` → its bucket and key prefix. */
export function parseS3Location(location: string): { bucket: string; prefix: string } {
  const [, bucket, prefix = ''] = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location)!;
  return { bucket, prefix };
}

/** What one role's Athena queries may touch: the deployment's (single-tenant), or one organization's. */
interface Scope {
  workGroups: string[];
  catalog: string;
  databases: string[];
  dataLocations: string[];
  output: { bucket: string; prefix: string };
}

/** Athena runs at most this many of one snapshot's queries at once (one per fact table). */
const QUERY_CONCURRENCY = 5;

/**
 * Experiment snapshots on Athena as a Step Functions standard workflow: plan (Lambda) → every
 * query on Athena at once (`startQueryExecution.sync`) → analyse (Lambda) → success. Any failure is
 * caught and recorded on the snapshot by the fail Lambda, and a run that times out or is stopped is
 * recorded by the same Lambda from its status event, so no snapshot stays `running`.
 */
export class AnalysisStack extends Stack {
  readonly stateMachine: StateMachine;
  readonly resultsBucket?: Bucket;
  readonly functions: { plan: ServiceFunction; analyse: ServiceFunction; fail: ServiceFunction };

  constructor(scope: Construct, id: string, props: AnalysisStackProps) {
    super(scope, id, props);
    const { config, table } = props;

    if (!config.athenaOutputLocation) {
      this.resultsBucket = new Bucket(this, 'AthenaResults', {
        encryption: BucketEncryption.S3_MANAGED,
        blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
        enforceSSL: true,
        // Query results are the snapshot's aggregates, copied into the table by the analyse step.
        lifecycleRules: [{ expiration: Duration.days(7), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
        // Kept on teardown like the log groups; it empties itself within a week.
        removalPolicy: RemovalPolicy.RETAIN,
      });
      Validations.of(this.resultsBucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'Holds only transient Athena query results (aggregates, expired after 7 days); only the analysis roles can read or write it, and those calls are in CloudTrail.',
      });
    }
    const output = parseS3Location(config.athenaOutputLocation ?? `s3://${this.resultsBucket!.bucketName}/`);
    const outputLocation = `s3://${output.bucket}/${output.prefix}`;

    const arn = (service: string, resource: string, resourceName?: string) => this.formatArn({ service, resource, resourceName });
    const bucketArn = (bucket: string) => `arn:${this.partition}:s3:::${bucket}`;
    const objectsArn = ({ bucket, prefix }: { bucket: string; prefix: string }) => `${bucketArn(bucket)}/${prefix}*`;
    const tenants = config.athenaTenants ? Object.entries(config.athenaTenants) : undefined;
    // Single-tenant: one scope, the deployment's; the state machine's role runs every query.
    const shared: Scope = {
      workGroups: config.athenaWorkGroups,
      catalog: config.athenaCatalog,
      databases: config.athenaDatabases,
      dataLocations: config.athenaDataLocations,
      output,
    };

    /** Reading an Athena query's results: the execution, its pages, and the result files in the output location. */
    const readResults = (scope: Scope) => [
      new PolicyStatement({ actions: ['athena:GetQueryExecution', 'athena:GetQueryResults'], resources: scope.workGroups.map((name) => arn('athena', 'workgroup', name)) }),
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [objectsArn(scope.output)] }),
      new PolicyStatement({ actions: ['s3:ListBucket', 's3:GetBucketLocation'], resources: [bucketArn(scope.output.bucket)] }),
    ];

    /**
     * What `startQueryExecution.sync` needs from the role it runs with: Athena in the scope's
     * workgroups, and, because Athena reads and writes with the caller's rights, Glue's metadata of
     * the scope's databases, its data locations, and its output location.
     */
    const runQueries = (scope: Scope): PolicyStatement[] => {
      const dataLocations = scope.dataLocations.map(parseS3Location);
      return [
        new PolicyStatement({
          actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:StopQueryExecution', 'athena:GetWorkGroup'],
          resources: scope.workGroups.map((name) => arn('athena', 'workgroup', name)),
        }),
        new PolicyStatement({ actions: ['athena:GetDataCatalog'], resources: [arn('athena', 'datacatalog', scope.catalog)] }),
        ...(scope.databases.length
          ? [
              new PolicyStatement({
                actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetTables', 'glue:GetPartition', 'glue:GetPartitions', 'glue:BatchGetPartition'],
                resources: [
                  arn('glue', 'catalog'),
                  ...scope.databases.flatMap((database) => [arn('glue', 'database', database), arn('glue', 'table', `${database}/*`)]),
                ],
              }),
            ]
          : []),
        ...(dataLocations.length
          ? [
              new PolicyStatement({ actions: ['s3:GetObject'], resources: dataLocations.map(objectsArn) }),
              new PolicyStatement({
                actions: ['s3:ListBucket', 's3:GetBucketLocation'],
                resources: [...new Set(dataLocations.map((location) => bucketArn(location.bucket)))],
              }),
            ]
          : []),
        new PolicyStatement({
          actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
          resources: [objectsArn(scope.output)],
        }),
        new PolicyStatement({
          actions: ['s3:ListBucket', 's3:GetBucketLocation', 's3:ListBucketMultipartUploads'],
          resources: [bucketArn(scope.output.bucket)],
        }),
      ];
    };
    const wildcards = 'The wildcard stays under a configured S3 prefix or Glue database (athenaOutputLocation, athenaDataLocations, athenaDatabases, athenaTenants): Athena names its result files, and tables are found at query time.';
    const wildcardsOf = (scope: Scope) => [
      objectsArn(scope.output),
      ...scope.dataLocations.map(parseS3Location).map(objectsArn),
      ...scope.databases.map((database) => arn('glue', 'table', `${database}/*`)),
    ];

    const common = { config, table, timeout: Duration.minutes(5), environment: { ATHENA_OUTPUT_LOCATION: outputLocation } };
    const plan = new ServiceFunction(this, 'PlanSnapshot', {
      ...common,
      entry: planSnapshotHandler,
      description: 'Snapshot state machine: builds the Athena SQL of a snapshot',
      timeout: Duration.minutes(1),
    });
    const analyse = new ServiceFunction(this, 'AnalyseSnapshot', {
      ...common,
      entry: analyseSnapshotHandler,
      description: 'Snapshot state machine: reads the Athena results and stores the statistics',
    });
    if (!tenants) for (const statement of readResults(shared)) analyse.addToRolePolicy(statement);
    const fail = new ServiceFunction(this, 'FailSnapshot', {
      ...common,
      entry: failSnapshotHandler,
      description: 'Snapshot state machine: records a failed or timed-out run on its snapshot',
      timeout: Duration.minutes(1),
    });
    this.functions = { plan, analyse, fail };

    const catchTo = { resultPath: '$.error', errors: ['States.ALL'] };
    const recordFailure = new LambdaInvoke(this, 'RecordFailure', {
      lambdaFunction: fail,
      payload: TaskInput.fromObject({
        orgId: JsonPath.stringAt('$.orgId'),
        snapshotId: JsonPath.stringAt('$.snapshotId'),
        error: JsonPath.objectAt('$.error'),
      }),
      resultPath: JsonPath.DISCARD,
      retryOnServiceExceptions: true,
    }).next(new Fail(this, 'Failed', { error: 'SnapshotFailed', cause: 'The run failed; the snapshot records why' }));

    const planStep = new LambdaInvoke(this, 'Plan', {
      lambdaFunction: plan,
      payload: TaskInput.fromObject({ orgId: JsonPath.stringAt('$.orgId'), snapshotId: JsonPath.stringAt('$.snapshotId') }),
      payloadResponseOnly: true,
      resultPath: '$.plan',
      retryOnServiceExceptions: true,
    }).addCatch(recordFailure, catchTo);

    // Written as the state's own JSON: the CDK task's parameters cannot take the workgroup,
    // database and output location from the state's data, and its generated policy is far wider
    // than the statements below.
    const runQuery = new CustomState(this, 'RunQuery', {
      stateJson: {
        Type: 'Task',
        Resource: `arn:${this.partition}:states:::athena:startQueryExecution.sync`,
        Parameters: {
          'QueryString.$': '$.sql',
          'WorkGroup.$': '$.athena.workGroup',
          QueryExecutionContext: { 'Database.$': '$.athena.database', 'Catalog.$': '$.athena.catalog' },
          ResultConfiguration: { 'OutputLocation.$': '$.athena.outputLocation' },
        },
        // Multi-tenant: the query runs with its organization's role, which the plan names.
        ...(tenants ? { Credentials: { 'RoleArn.$': '$.athena.roleArn' } } : {}),
        ResultSelector: { 'queryExecutionId.$': '$.QueryExecution.QueryExecutionId' },
        ResultPath: '$.execution',
        TimeoutSeconds: config.analysisTimeoutMinutes * 60,
        Retry: [{ ErrorEquals: ['Athena.TooManyRequestsException', 'Athena.InternalServerException'], IntervalSeconds: 5, MaxAttempts: 5, BackoffRate: 2 }],
      },
    });
    // Says which query failed, with Athena's own reason in the cause, for the fail Lambda.
    const queryFailed = new Pass(this, 'QueryFailed', {
      parameters: { 'Error.$': '$.error.Error', 'Cause.$': "States.Format('Query {} failed: {}', $.id, $.error.Cause)" },
    }).next(new Fail(this, 'QueryFailedStop', { errorPath: '$.Error', causePath: '$.Cause' }));
    runQuery.addCatch(queryFailed, catchTo);
    const executed = new Pass(this, 'Executed', {
      parameters: { 'id.$': '$.id', 'queryExecutionId.$': '$.execution.queryExecutionId' },
    });

    const queries = new MapState(this, 'RunQueries', {
      itemsPath: '$.plan.queries',
      itemSelector: { 'id.$': '$$.Map.Item.Value.id', 'sql.$': '$$.Map.Item.Value.sql', 'athena.$': '$.plan.athena' },
      maxConcurrency: QUERY_CONCURRENCY,
      resultPath: '$.executions',
    });
    queries.itemProcessor(runQuery.next(executed));
    queries.addCatch(recordFailure, catchTo);

    const analyseStep = new LambdaInvoke(this, 'Analyse', {
      lambdaFunction: analyse,
      payload: TaskInput.fromObject({
        orgId: JsonPath.stringAt('$.orgId'),
        snapshotId: JsonPath.stringAt('$.snapshotId'),
        executions: JsonPath.objectAt('$.executions'),
      }),
      resultPath: JsonPath.DISCARD,
      retryOnServiceExceptions: true,
    }).addCatch(recordFailure, catchTo);

    const logs = new LogGroup(this, 'StateMachineLogs', { retention: config.logRetentionDays });
    this.stateMachine = new StateMachine(this, 'SnapshotStateMachine', {
      stateMachineName: `switchyard-${config.stage}-snapshots`,
      definitionBody: DefinitionBody.fromChainable(planStep.next(queries).next(analyseStep).next(new Succeed(this, 'Done'))),
      timeout: Duration.minutes(config.analysisTimeoutMinutes),
      tracingEnabled: true,
      logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: false },
    });

    const role = this.stateMachine.role;
    if (tenants) {
      const roles = Object.fromEntries(tenants.map(([orgId, tenant]) => [orgId, this.tenantRole(orgId, tenant, [role, analyse.role!], { runQueries, readResults, wildcardsOf, wildcards, output })]));
      // The plan names the role in the state's data; the analyse function reads the results with it.
      for (const fn of [plan, analyse]) fn.addEnvironment('ATHENA_TENANT_ROLES', this.toJsonString(Object.fromEntries(Object.entries(roles).map(([orgId, r]) => [orgId, r.roleArn]))));
    } else {
      for (const statement of runQueries(shared)) role.addToPrincipalPolicy(statement);
      acknowledgeWildcards(role, wildcardsOf(shared), wildcards);
      acknowledgeWildcards(analyse.role!, [objectsArn(output)], wildcards);
    }
    acknowledgeWildcards(
      role,
      [plan, analyse, fail].map((fn) => `${fn.functionArn}:*`),
      "CDK's Lambda invoke grant covers the state machine's own functions and their versions.",
    );
    acknowledgeWildcards(
      role,
      ['*'],
      'X-Ray tracing and CloudWatch Logs delivery for the state machine (logs:*LogDelivery*, logs:DescribeResourcePolicies) support no resource-level permissions.',
    );

    // A run that times out or is stopped ends without any Catch: this rule records it on the snapshot.
    new Rule(this, 'RunEndedWithoutCatch', {
      description: 'Marks the snapshot of a timed-out or stopped analysis run as error',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: { status: ['TIMED_OUT', 'ABORTED'], stateMachineArn: [this.stateMachine.stateMachineArn] },
      },
      targets: [new LambdaFunction(fail, { retryAttempts: 10, maxEventAge: Duration.hours(2) })],
    });

    const period = Duration.minutes(5);
    alarm(this, 'FailedRunsAlarm', config, {
      metric: this.stateMachine.metricFailed({ statistic: 'Sum', period }),
      threshold: 1,
      description: 'A snapshot analysis run failed (its snapshot is marked error with the reason)',
    });
    alarm(this, 'TimedOutRunsAlarm', config, {
      metric: this.stateMachine.metricTimedOut({ statistic: 'Sum', period }),
      threshold: 1,
      description: `A snapshot analysis run took longer than ${config.analysisTimeoutMinutes} minutes`,
    });
    alarm(this, 'FailRecorderErrorsAlarm', config, {
      metric: fail.metricErrors({ statistic: 'Sum', period }),
      threshold: 1,
      description: 'Recording a failed snapshot run failed: the snapshot may stay running',
    });
  }

  /**
   * One organization's role (multi-tenant): the state machine runs the organization's queries with it,
   * and the analyse function reads their results with it; it reaches only the tenant's workgroups,
   * Glue databases, data locations and its own prefix of the output location.
   */
  private tenantRole(
    orgId: string,
    tenant: AthenaTenant,
    assumers: IRole[],
    iam: {
      runQueries: (scope: Scope) => PolicyStatement[];
      readResults: (scope: Scope) => PolicyStatement[];
      wildcardsOf: (scope: Scope) => string[];
      wildcards: string;
      output: { bucket: string; prefix: string };
    },
  ): Role {
    const scope: Scope = { ...tenant, output: { bucket: iam.output.bucket, prefix: `${iam.output.prefix}${orgId}/` } };
    const role = new Role(this, `AthenaTenant-${orgId}`, {
      assumedBy: new CompositePrincipal(...assumers.map((assumer) => new ArnPrincipal(assumer.roleArn))),
      description: `Snapshot queries of organization ${orgId} on Athena (athenaTenants)`,
      maxSessionDuration: Duration.hours(1),
    });
    // Of reading results, only the Athena call is new: running queries already covers the output prefix.
    for (const statement of [...iam.runQueries(scope), iam.readResults(scope)[0]]) role.addToPrincipalPolicy(statement);
    for (const assumer of assumers) role.grantAssumeRole(assumer);
    acknowledgeWildcards(role, iam.wildcardsOf(scope), iam.wildcards);
    return role;
  }
}
