import { App, NestedStack, type Stack } from 'aws-cdk-lib';
import { readConfig } from '../../infra/config';
import { snapshotStarter, snapshotStarters } from '../../infra/api-stack';
import { ofType, resourcesOf, synthesize, type CfnResource } from './synth';

/** The analysis settings a deployment with its own Athena data gives as context. */
const athenaContext = {
  athenaWorkGroups: 'analytics',
  athenaCatalog: 'AwsDataCatalog',
  athenaDatabases: 'events,orders',
  athenaDataLocations: 's3://acme-lake/events/,s3://acme-lake/orders/',
  athenaOutputLocation: 's3://acme-athena-results/switchyard/',
  analysisTimeoutMinutes: '20',
};
// Two synths: the defaults, and a deployment that names its own Athena data.
const defaults = synthesize();
const configured = synthesize(athenaContext);

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}
const ref = (value: unknown) => (value as { Ref?: string })?.Ref;
const getAttId = (value: unknown) => (value as { 'Fn::GetAtt'?: [string, string] })?.['Fn::GetAtt']?.[0];
const actions = (statement: Statement) => [statement.Action].flat();
const resourcesOfStatement = (statement: Statement) => [statement.Resource].flat();

/** A CloudFormation value as text, tokens written as `<Ref>` / `<Id.Attr>`, so resources can be compared with strings. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (v.Ref) return `<${v.Ref}>`;
  if (v['Fn::GetAtt']) return `<${v['Fn::GetAtt'].join('.')}>`;
  if (v['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(text).join(v['Fn::Join'][0]);
  return JSON.stringify(value);
}

/** The statements of every policy attached to the role `roleId` in `resources`. */
function statementsOfRole(resources: Record<string, CfnResource>, roleId: string): Statement[] {
  return ofType(resources, 'AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties!.Roles as unknown[]).some((r) => ref(r) === roleId))
    .flatMap(([, policy]) => policy.Properties!.PolicyDocument.Statement as Statement[]);
}

function stateMachineOf(stack: Stack) {
  const resources = resourcesOf(stack);
  const [[id, machine]] = ofType(resources, 'AWS::StepFunctions::StateMachine');
  // The definition is a Join of text and tokens (function ARNs); tokens become placeholders so it parses.
  const join = machine.Properties!.DefinitionString['Fn::Join'][1] as unknown[];
  const definition = JSON.parse(join.map((part) => (typeof part === 'string' ? part : 'TOKEN')).join(''));
  return { id, machine, definition, resources, statements: statementsOfRole(resources, getAttId(machine.Properties!.RoleArn)!) };
}

function functionByDescription(resources: Record<string, CfnResource>, description: string) {
  const [[id, fn]] = ofType(resources, 'AWS::Lambda::Function').filter(([, f]) => f.Properties!.Description === description);
  return { id, fn, statements: statementsOfRole(resources, getAttId(fn.Properties!.Role)!) };
}

describe('the snapshot state machine', () => {
  const { definition, machine } = stateMachineOf(configured.analysis);

  it('plans, runs every query on Athena with startQueryExecution.sync, analyses, then succeeds', () => {
    expect(definition.StartAt).toBe('Plan');
    expect(definition.States.Plan.Next).toBe('RunQueries');
    expect(definition.States.RunQueries).toMatchObject({ Type: 'Map', ItemsPath: '$.plan.queries', Next: 'Analyse' });
    expect(definition.States.Analyse.Next).toBe('Done');
    const runQuery = definition.States.RunQueries.ItemProcessor.States.RunQuery;
    expect(runQuery.Resource).toMatch(/:states:::athena:startQueryExecution\.sync$/);
    expect(runQuery.Parameters).toEqual({
      'QueryString.$': '$.sql',
      'WorkGroup.$': '$.athena.workGroup',
      QueryExecutionContext: { 'Database.$': '$.athena.database', 'Catalog.$': '$.athena.catalog' },
      ResultConfiguration: { 'OutputLocation.$': '$.athena.outputLocation' },
    });
  });

  it('sends any failure of plan, queries or analysis to the step that records it, then fails the run', () => {
    for (const state of ['Plan', 'RunQueries', 'Analyse']) {
      expect(definition.States[state].Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'RecordFailure' }]);
    }
    expect(definition.States.RecordFailure.Next).toBe('Failed');
    expect(definition.States.Failed.Type).toBe('Fail');
  });

  it('names the failed query and Athena\'s reason in the error it records', () => {
    const iterator = definition.States.RunQueries.ItemProcessor.States;

    expect(iterator.RunQuery.Catch[0].Next).toBe('QueryFailed');
    expect(iterator.QueryFailed.Parameters['Cause.$']).toBe("States.Format('Query {} failed: {}', $.id, $.error.Cause)");
  });

  it('stops a run, and each query, at the configured time limit', () => {
    expect(definition.TimeoutSeconds).toBe(20 * 60);
    expect(definition.States.RunQueries.ItemProcessor.States.RunQuery.TimeoutSeconds).toBe(20 * 60);
    expect(machine.Properties!.TracingConfiguration).toEqual({ Enabled: true });
    expect(machine.Properties!.LoggingConfiguration.Level).toBe('ALL');
  });

  it('records a timed-out or stopped run on its snapshot through an EventBridge rule to the fail function', () => {
    const resources = resourcesOf(configured.analysis);
    const fail = functionByDescription(resources, 'Snapshot state machine: records a failed or timed-out run on its snapshot');
    const [[, rule]] = ofType(resources, 'AWS::Events::Rule');

    expect(rule.Properties!.EventPattern).toMatchObject({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: { status: ['TIMED_OUT', 'ABORTED'] },
    });
    expect(getAttId(rule.Properties!.Targets[0].Arn)).toBe(fail.id);
  });

  it('alarms on failed runs, timed-out runs and errors of the failure recorder', () => {
    const { id } = stateMachineOf(configured.analysis);
    const alarms = ofType(resourcesOf(configured.analysis), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);
    const onMachine = (metric: string) =>
      alarms.find((a) => a.MetricName === metric && a.Dimensions?.some((d: { Value: unknown }) => ref(d.Value) === id));

    expect(onMachine('ExecutionsFailed')).toMatchObject({ Namespace: 'AWS/States', Threshold: 1 });
    expect(onMachine('ExecutionsTimedOut')).toMatchObject({ Namespace: 'AWS/States', Threshold: 1 });
    expect(alarms.some((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda')).toBe(true);
  });
});

describe('IAM of the analysis', () => {
  const { statements } = stateMachineOf(configured.analysis);
  const resourcesFor = (action: string) => statements.filter((s) => actions(s).includes(action)).flatMap(resourcesOfStatement).map(text);

  it('runs Athena queries only in the configured workgroup and catalog', () => {
    expect(resourcesFor('athena:StartQueryExecution')).toEqual([
      'arn:<AWS::Partition>:athena:<AWS::Region>:<AWS::AccountId>:workgroup/analytics',
    ]);
    expect(resourcesFor('athena:GetDataCatalog')).toEqual(['arn:<AWS::Partition>:athena:<AWS::Region>:<AWS::AccountId>:datacatalog/AwsDataCatalog']);
  });

  it('reads Glue metadata of the configured databases only, and never writes it', () => {
    expect(resourcesFor('glue:GetTable').sort()).toEqual(
      [
        'arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:catalog',
        'arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:database/events',
        'arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:table/events/*',
        'arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:database/orders',
        'arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:table/orders/*',
      ].sort(),
    );
    const glueActions = statements.flatMap(actions).filter((a) => a.startsWith('glue:'));
    expect(glueActions.every((a) => /^glue:(Get|BatchGet)/.test(a))).toBe(true);
  });

  it('reads the configured data locations and writes only the output location', () => {
    expect(resourcesFor('s3:GetObject').sort()).toEqual(
      ['arn:<AWS::Partition>:s3:::acme-lake/events/*', 'arn:<AWS::Partition>:s3:::acme-lake/orders/*', 'arn:<AWS::Partition>:s3:::acme-athena-results/switchyard/*'].sort(),
    );
    expect(resourcesFor('s3:PutObject')).toEqual(['arn:<AWS::Partition>:s3:::acme-athena-results/switchyard/*']);
  });

  it('grants no wildcard action, and `*` resources only to X-Ray and log delivery', () => {
    expect(statements.flatMap(actions).filter((a) => a.includes('*'))).toEqual([]);
    const onEverything = statements.filter((s) => resourcesOfStatement(s).includes('*')).flatMap(actions);
    expect(onEverything.every((a) => a.startsWith('xray:') || a.startsWith('logs:'))).toBe(true);
  });

  it('lets the analyse function read query results in the configured workgroup and output location only', () => {
    const analyse = functionByDescription(resourcesOf(configured.analysis), 'Snapshot state machine: reads the Athena results and stores the statistics');
    const forAction = (action: string) => analyse.statements.filter((s) => actions(s).includes(action)).flatMap(resourcesOfStatement).map(text);

    expect(forAction('athena:GetQueryResults')).toEqual(['arn:<AWS::Partition>:athena:<AWS::Region>:<AWS::AccountId>:workgroup/analytics']);
    expect(forAction('s3:GetObject')).toEqual(['arn:<AWS::Partition>:s3:::acme-athena-results/switchyard/*']);
    expect(analyse.statements.flatMap(actions).filter((a) => a.startsWith('athena:Start') || a === 's3:PutObject')).toEqual([]);
  });

  it('by default creates a private, encrypted results bucket and scopes the output location to it', () => {
    const resources = resourcesOf(defaults.analysis);
    const [[bucketId, bucket]] = ofType(resources, 'AWS::S3::Bucket');
    const { statements: defaultStatements } = stateMachineOf(defaults.analysis);
    const putTargets = defaultStatements.filter((s) => actions(s).includes('s3:PutObject')).flatMap(resourcesOfStatement).map(text);

    expect(bucket.Properties!.PublicAccessBlockConfiguration).toMatchObject({ BlockPublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.Properties!.BucketEncryption).toBeDefined();
    expect(putTargets).toEqual([`arn:<AWS::Partition>:s3:::<${bucketId}>/*`]);
    expect(defaultStatements.flatMap(actions).filter((a) => a.startsWith('glue:'))).toEqual([]);
  });
});

describe('the API and the analysis', () => {
  const apiStacks = (built: typeof configured): Stack[] => [built.api, ...built.api.node.children.filter(NestedStack.isNestedStack)];
  const allFunctions = (built: typeof configured) =>
    apiStacks(built).flatMap((stack) => {
      const resources = resourcesOf(stack);
      return ofType(resources, 'AWS::Lambda::Function').map(([id, fn]) => ({ id, fn, statements: statementsOfRole(resources, getAttId(fn.Properties!.Role)!) }));
    });

  it(`gives ${snapshotStarter} the state machine's ARN and StartExecution on that state machine only`, () => {
    const starter = allFunctions(configured).filter((f) => f.fn.Properties!.Description === 'POST /api/v1/experiments/{id}/snapshot');
    expect(starter).toHaveLength(1);
    const { fn, statements } = starter[0];
    const arn = fn.Properties!.Environment.Variables.SNAPSHOT_STATE_MACHINE_ARN;
    const start = statements.filter((s) => actions(s).includes('states:StartExecution'));

    expect(arn).toBeDefined();
    expect(start).toHaveLength(1);
    expect(actions(start[0])).toEqual(['states:StartExecution']);
    expect(resourcesOfStatement(start[0])).toEqual([arn]);
  });

  it(`tells ${snapshotStarter} the state machine's time limit, from which it sets a snapshot's watch deadline`, () => {
    const [{ fn }] = allFunctions(configured).filter((f) => f.fn.Properties!.Description === 'POST /api/v1/experiments/{id}/snapshot');

    // The configured limit of this file's context, 20 minutes, as the state machine's TimeoutSeconds says above.
    expect(fn.Properties!.Environment.Variables.SNAPSHOT_TIMEOUT_MS).toBe(String(20 * 60 * 1000));
  });

  // Reports run snapshots of their own, started the same way; a fact metric's analysis runs on the same state machine.
  it.each(['POST /api/v1/reports', 'POST /api/v1/reports/{id}/refresh', 'POST /api/v1/fact-metrics/{id}/analysis'])("gives %s the state machine's ARN and time limit, and StartExecution on that state machine only", (description) => {
    const starter = allFunctions(configured).filter((f) => f.fn.Properties!.Description === description);
    expect(starter).toHaveLength(1);
    const { fn, statements } = starter[0];
    const arn = fn.Properties!.Environment.Variables.SNAPSHOT_STATE_MACHINE_ARN;
    const start = statements.filter((s) => actions(s).includes('states:StartExecution'));

    expect(arn).toBeDefined();
    expect(fn.Properties!.Environment.Variables.SNAPSHOT_TIMEOUT_MS).toBe(String(20 * 60 * 1000));
    expect(start).toHaveLength(1);
    expect(actions(start[0])).toEqual(['states:StartExecution']);
    expect(resourcesOfStatement(start[0])).toEqual([arn]);
  });

  it('gives no other API function the state machine or any Step Functions action', () => {
    // The snapshot endpoint, the report runs, and the monitoring refresh of a ramp schedule, which start their snapshots
    // the same way; and a fact metric's analysis, which the same state machine runs.
    const starters = [
      'POST /api/v1/experiments/{id}/snapshot',
      'POST /api/v1/reports',
      'POST /api/v1/reports/{id}/refresh',
      'POST /api/v1/ramp-schedules/{id}/actions/refresh-monitoring',
      'POST /api/v1/fact-metrics/{id}/analysis',
    ];
    expect(snapshotStarters).toHaveLength(starters.length);
    const others = allFunctions(configured).filter((f) => !starters.includes(f.fn.Properties!.Description));

    expect(others.filter((f) => f.fn.Properties!.Environment?.Variables?.SNAPSHOT_STATE_MACHINE_ARN)).toEqual([]);
    expect(others.flatMap((f) => f.statements.flatMap(actions)).filter((a) => a.startsWith('states:'))).toEqual([]);
  });

  it('allows only athena data sources in every API function (ANALYSIS_ENGINES)', () => {
    const engines = allFunctions(defaults).map((f) => f.fn.Properties!.Environment.Variables.ANALYSIS_ENGINES);

    expect(new Set(engines)).toEqual(new Set(['athena']));
  });
});

describe('analysis configuration', () => {
  const configWith = (context: Record<string, unknown>) => readConfig(new App({ context }).node);

  it('defaults to the primary workgroup, the default catalog, no databases or data locations, and 30 minutes', () => {
    expect(configWith({})).toMatchObject({
      athenaWorkGroups: ['primary'],
      athenaCatalog: 'AwsDataCatalog',
      athenaDatabases: [],
      athenaDataLocations: [],
      analysisTimeoutMinutes: 30,
    });
    expect(configWith({}).athenaOutputLocation).toBeUndefined();
  });

  it('parses comma-separated lists and refuses locations that are not S3 URIs', () => {
    expect(configWith(athenaContext)).toMatchObject({
      athenaWorkGroups: ['analytics'],
      athenaDatabases: ['events', 'orders'],
      athenaDataLocations: ['s3://acme-lake/events/', 's3://acme-lake/orders/'],
      athenaOutputLocation: 's3://acme-athena-results/switchyard/',
      analysisTimeoutMinutes: 20,
    });
    expect(() => configWith({ athenaDataLocations: 'https://example.com/data' })).toThrow(/athenaDataLocations must be S3 URIs/);
    expect(() => configWith({ analysisTimeoutMinutes: '0' })).toThrow(/analysisTimeoutMinutes/);
  });
});

describe('a deployment that confines each organization (athenaTenants)', () => {
  const tenants = {
    org_a: { workGroups: ['wg-a'], databases: ['db_a'], dataLocations: ['s3://lake-a/events/'] },
    org_b: { workGroups: ['wg-b'], databases: ['db_b'], dataLocations: ['s3://lake-b/'] },
  };
  const confined = synthesize({ ...athenaContext, athenaTenants: JSON.stringify(tenants) });
  const { definition, statements, resources, machine } = stateMachineOf(confined.analysis);
  const roles = ofType(resources, 'AWS::IAM::Role').filter(([, r]) => /athenaTenants/.test(r.Properties!.Description ?? ''));
  const roleOf = (orgId: string) => roles.find(([, r]) => r.Properties!.Description.includes(orgId))!;
  const forAction = (list: Statement[], action: string) => list.filter((s) => actions(s).includes(action)).flatMap(resourcesOfStatement).map(text).sort();
  const analyse = functionByDescription(resources, 'Snapshot state machine: reads the Athena results and stores the statistics');
  const plan = functionByDescription(resources, 'Snapshot state machine: builds the Athena SQL of a snapshot');

  it('creates one role per organization, which only the state machine and the analyse function may assume', () => {
    expect(roles).toHaveLength(2);
    for (const [, role] of roles) {
      const trust = role.Properties!.AssumeRolePolicyDocument.Statement as { Action: string; Principal: { AWS: unknown[] } }[];
      expect(trust).toHaveLength(1);
      expect(trust[0].Action).toBe('sts:AssumeRole');
      expect(trust[0].Principal.AWS.map(text).sort()).toEqual([`<${getAttId(machine.Properties!.RoleArn)}.Arn>`, `<${getAttId(analyse.fn.Properties!.Role)}.Arn>`].sort());
    }
  });

  it("scopes each organization's role to its own workgroups, databases, data and output prefix", () => {
    const a = statementsOfRole(resources, roleOf('org_a')[0]);

    expect(forAction(a, 'athena:StartQueryExecution')).toEqual(['arn:<AWS::Partition>:athena:<AWS::Region>:<AWS::AccountId>:workgroup/wg-a']);
    expect(forAction(a, 'athena:GetQueryResults')).toEqual(['arn:<AWS::Partition>:athena:<AWS::Region>:<AWS::AccountId>:workgroup/wg-a']);
    expect(forAction(a, 'glue:GetTable')).toEqual(
      [
        'arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:catalog',
        'arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:database/db_a',
        'arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:table/db_a/*',
      ].sort(),
    );
    expect(forAction(a, 's3:GetObject')).toEqual(['arn:<AWS::Partition>:s3:::acme-athena-results/switchyard/org_a/*', 'arn:<AWS::Partition>:s3:::lake-a/events/*']);
    expect(forAction(a, 's3:PutObject')).toEqual(['arn:<AWS::Partition>:s3:::acme-athena-results/switchyard/org_a/*']);
    expect(JSON.stringify(a)).not.toMatch(/wg-b|db_b|lake-b|org_b|analytics|acme-lake/);
  });

  it('runs each query with the role the plan names, and gives the state machine no data access of its own', () => {
    const runQuery = definition.States.RunQueries.ItemProcessor.States.RunQuery;

    expect(runQuery.Credentials).toEqual({ 'RoleArn.$': '$.athena.roleArn' });
    expect(statements.flatMap(actions).filter((a) => /^(athena|glue|s3):/.test(a))).toEqual([]);
    expect(forAction(statements, 'sts:AssumeRole')).toEqual(roles.map(([id]) => `<${id}.Arn>`).sort());
  });

  it('reads results only through the organization roles', () => {
    expect(analyse.statements.flatMap(actions).filter((a) => /^(athena|glue|s3):/.test(a))).toEqual([]);
    expect(forAction(analyse.statements, 'sts:AssumeRole')).toEqual(roles.map(([id]) => `<${id}.Arn>`).sort());
    for (const { fn } of [plan, analyse]) {
      const value = fn.Properties!.Environment.Variables.ATHENA_TENANT_ROLES;
      expect(text(value)).toBe(JSON.stringify({ org_a: `<${roleOf('org_a')[0]}.Arn>`, org_b: `<${roleOf('org_b')[0]}.Arn>` }));
    }
  });

  it("gives every API function each organization's allowance (ATHENA_TENANTS), and a single-tenant deployment none", () => {
    const apiFunctions = (built: typeof configured) =>
      [built.api, ...built.api.node.children.filter(NestedStack.isNestedStack)].flatMap((stack) => ofType(resourcesOf(stack), 'AWS::Lambda::Function'));
    const expected = JSON.stringify({
      org_a: { workGroups: ['wg-a'], databases: ['db_a'], catalog: 'AwsDataCatalog' },
      org_b: { workGroups: ['wg-b'], databases: ['db_b'], catalog: 'AwsDataCatalog' },
    });

    expect(new Set(apiFunctions(confined).map(([, fn]) => fn.Properties!.Environment.Variables.ATHENA_TENANTS))).toEqual(new Set([expected]));
    expect(apiFunctions(configured).filter(([, fn]) => fn.Properties!.Environment.Variables.ATHENA_TENANTS)).toEqual([]);
    expect(stateMachineOf(configured.analysis).definition.States.RunQueries.ItemProcessor.States.RunQuery.Credentials).toBeUndefined();
  });

  it('refuses tenants that are not JSON, name no workgroup, or give data locations that are not S3 URIs', () => {
    const configWith = (athenaTenants: unknown) => readConfig(new App({ context: { athenaTenants } }).node);

    expect(configWith(JSON.stringify(tenants)).athenaTenants?.org_b).toEqual({ workGroups: ['wg-b'], databases: ['db_b'], dataLocations: ['s3://lake-b/'], catalog: 'AwsDataCatalog' });
    expect(() => configWith('{org_a')).toThrow(/athenaTenants must be JSON/);
    expect(() => configWith({ org_a: { databases: ['x'] } })).toThrow(/org_a needs at least one workGroup/);
    expect(() => configWith({ org_a: { workGroups: ['w'], dataLocations: ['https://x'] } })).toThrow(/athenaTenants\.org_a\.dataLocations must be S3 URIs/);
    expect(() => configWith({ 'org a/..': { workGroups: ['w'] } })).toThrow(/not an organization id/);
  });
});
