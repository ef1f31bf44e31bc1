import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CfnElement } from 'aws-cdk-lib';
import { tableAccessOf, tableActions, writeDeniedActions, writeDeniedLeadingKeys } from '../../infra/grants';
import { allHandlers, rampAdvancerHandler, ServiceFunction, tableReadActions, tableWriteActions } from '../../infra/lambda';
import { keys } from '../../shared/db/keys';
import { routes, unknownRouteHandler } from '../../shared/contracts/registry';
import { fullPath } from '../../shared/contracts/spec';
import { tableSchema } from '../../shared/db/table-schema';
import { ofType, resourcesOf, synthesize, type CfnResource } from './synth';

// One synth for the whole file.
const built = synthesize();
const { api, data, scheduler, events } = built;
const apiStacks: Stack[] = [api, ...api.node.children.filter(NestedStack.isNestedStack)];
const allStacks: Stack[] = [data, ...apiStacks, scheduler, events];

const routeKey = (route: (typeof routes)[number]) => `${route.spec.method} ${fullPath(route.spec)}`;
const ref = (value: unknown) => (value as { Ref?: string })?.Ref;
const getAttId = (value: unknown) => (value as { 'Fn::GetAtt'?: [string, string] })?.['Fn::GetAtt']?.[0];

/** Each API route key and the function (stack/logical id) its integration calls. */
function routeTargets() {
  return apiStacks.flatMap((stack) => {
    const resources = resourcesOf(stack);
    return ofType(resources, 'AWS::ApiGatewayV2::Route').map(([, route]) => {
      const join = route.Properties!.Target['Fn::Join'][1] as unknown[];
      const integration = resources[ref(join[1])!];
      return { routeKey: route.Properties!.RouteKey as string, fn: `${stack.node.path}/${getAttId(integration.Properties!.IntegrationUri)}` };
    });
  });
}

/** Every Lambda function with the statements of its role's policies. */
function functionsWithStatements(stacks: Stack[]) {
  return stacks.flatMap((stack) => {
    const resources = resourcesOf(stack);
    return ofType(resources, 'AWS::Lambda::Function').map(([id, fn]) => {
      const role = getAttId(fn.Properties!.Role);
      const statements = ofType(resources, 'AWS::IAM::Policy')
        .filter(([, policy]) => (policy.Properties!.Roles as unknown[]).some((r) => ref(r) === role))
        .flatMap(([, policy]) => policy.Properties!.PolicyDocument.Statement as Statement[]);
      return { id, fn, statements };
    });
  });
}

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
  Condition?: unknown;
}
const actionsOf = (statements: Statement[]) => statements.flatMap((statement) => [statement.Action].flat());
/** The table actions a role's statements allow (the Deny of API-key writes is checked on its own). */
const dynamoItemActions = (statements: Statement[]) =>
  actionsOf(statements.filter((statement) => statement.Effect === 'Allow')).filter((action) =>
    [...tableReadActions, ...tableWriteActions, 'dynamodb:Scan'].includes(action),
  );
const byDescription = (description: string) => (fn: { fn: CfnResource }) => fn.fn.Properties!.Description === description;

describe('the API stack', () => {
  it('has one route per registry entry, and no other route but $default', () => {
    const keys = routeTargets().map((target) => target.routeKey);

    expect([...keys].sort()).toEqual([...routes.map(routeKey), '$default'].sort());
  });

  it("routes GET /healthcheck, at the root as GrowthBook serves it, to its own function", () => {
    const route = routes.find((candidate) => candidate.spec.operationId === 'getHealthcheck')!;
    const target = routeTargets().find((candidate) => candidate.routeKey === 'GET /healthcheck');

    expect(target).toBeDefined();
    expect(route.handler).toBe('functions/system/get-healthcheck.ts');
    expect(api.functions.get('getHealthcheck')?.entry).toBe(route.handler);
    expect(routeTargets().filter((candidate) => candidate.fn === target!.fn)).toHaveLength(1);
  });

  it('gives every route its own function and has no function without a route', () => {
    const targets = routeTargets();
    const functions = apiStacks.flatMap((stack) =>
      ofType(resourcesOf(stack), 'AWS::Lambda::Function').map(([id]) => `${stack.node.path}/${id}`),
    );

    expect(new Set(targets.map((target) => target.fn)).size).toBe(targets.length);
    expect([...functions].sort()).toEqual(targets.map((target) => target.fn).sort());
  });

  it.each(routes.map((route) => [route.spec.operationId, route]))('builds %s from its registry handler file', (operationId, route) => {
    const fn = api.functions.get(operationId);

    expect(fn?.entry).toBe(route.handler);
  });

  it('sends unmatched requests to the unknown-route function', () => {
    const target = routeTargets().find((candidate) => candidate.routeKey === '$default')!;
    const [stackPath, logicalId] = [target.fn.slice(0, target.fn.lastIndexOf('/')), target.fn.slice(target.fn.lastIndexOf('/') + 1)];
    const stack = apiStacks.find((candidate) => candidate.node.path === stackPath)!;
    const unknownRoute = api.node.findChild('UnknownRoute') as unknown as { entry: string };

    expect(resourcesOf(stack)[logicalId].Properties!.Description).toMatch(/Unknown API endpoint/);
    expect(unknownRoute.entry).toBe(unknownRouteHandler);
  });

  it('serves paths unchanged from the $default stage with throttling and JSON access logs', () => {
    const template = Template.fromStack(api);

    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"') },
    });
  });

  it('lets browsers GET the payload and POST remote evaluation with any request header, and read the ETag', () => {
    const template = Template.fromStack(api);

    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: { AllowOrigins: ['*'], AllowMethods: ['GET', 'POST', 'OPTIONS'], AllowHeaders: ['*'], ExposeHeaders: ['etag'] },
    });
  });

  it('alarms on the 5xx rate and on p95 latency', () => {
    const alarms = ofType(resourcesOf(api), 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties!);

    expect(alarms).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Threshold: 1,
          Metrics: expect.arrayContaining([
            expect.objectContaining({ Expression: 'IF(requests > 0, 100 * errors / requests, 0)' }),
            expect.objectContaining({ MetricStat: expect.objectContaining({ Metric: expect.objectContaining({ MetricName: '5xx' }) }) }),
          ]),
        }),
        expect.objectContaining({ MetricName: 'Latency', ExtendedStatistic: 'p95', Threshold: 1000 }),
      ]),
    );
  });

  it('keeps every stack within CloudFormation’s 500 resources', () => {
    for (const stack of allStacks) expect(Object.keys(resourcesOf(stack)).length).toBeLessThanOrEqual(500);
  });
});

describe('CloudFront in front of the API', () => {
  const distribution = () => ofType(resourcesOf(api), 'AWS::CloudFront::Distribution').map(([, resource]) => resource.Properties!.DistributionConfig)[0];
  const byId = (type: string) => Object.fromEntries(ofType(resourcesOf(api), type).map(([id, resource]) => [id, resource.Properties!]));

  it('caches the SDK payload by its path (the client key) and accepted encoding only, for the 30 s the API says, compressed', () => {
    const behavior = distribution().CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/features/*');
    const policy = byId('AWS::CloudFront::CachePolicy')[ref(behavior.CachePolicyId)!].CachePolicyConfig;

    expect(behavior).toMatchObject({ Compress: true, ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD', 'OPTIONS'] });
    expect(policy).toMatchObject({ DefaultTTL: 30, MinTTL: 0 });
    expect(policy.ParametersInCacheKeyAndForwardedToOrigin).toEqual({
      CookiesConfig: { CookieBehavior: 'none' },
      HeadersConfig: { HeaderBehavior: 'none' },
      QueryStringsConfig: { QueryStringBehavior: 'none' },
      EnableAcceptEncodingGzip: true,
      EnableAcceptEncodingBrotli: true,
    });
  });

  it('answers browsers with any requested header on the payload route', () => {
    const behavior = distribution().CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/features/*');
    const policy = byId('AWS::CloudFront::ResponseHeadersPolicy')[ref(behavior.ResponseHeadersPolicyId)!].ResponseHeadersPolicyConfig;

    expect(policy.CorsConfig).toMatchObject({
      AccessControlAllowOrigins: { Items: ['*'] },
      AccessControlAllowHeaders: { Items: ['*'] },
      AccessControlAllowMethods: { Items: ['GET', 'HEAD', 'OPTIONS'] },
      AccessControlAllowCredentials: false,
      OriginOverride: true,
    });
  });

  it('passes every other request to the API uncached, with its headers (keys included) and all methods', () => {
    const { DefaultCacheBehavior: behavior, Origins: origins } = distribution();

    // AWS's managed CachingDisabled and AllViewerExceptHostHeader policies.
    expect(behavior).toMatchObject({
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
    });
    expect(origins).toHaveLength(1);
    expect(origins[0].CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    expect(origins[0].OriginShield).toBeUndefined();
  });

  it('puts Origin Shield in front of the API when a region is given', () => {
    const shielded = synthesize({ originShieldRegion: 'eu-west-1' });
    const [[, resource]] = ofType(resourcesOf(shielded.api), 'AWS::CloudFront::Distribution');

    expect(resource.Properties!.DistributionConfig.Origins[0].OriginShield).toEqual({ Enabled: true, OriginShieldRegion: 'eu-west-1' });
  });
});

describe('every function', () => {
  const functions = functionsWithStatements(allStacks);

  it('runs nodejs22.x on ARM64 with tracing, JSON logs in its own log group and the shared environment', () => {
    for (const { fn } of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 1024,
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'INFO', LogGroup: { Ref: expect.any(String) } },
        Environment: {
          Variables: expect.objectContaining({
            TABLE_NAME: 'switchyard-prod',
            LOG_LEVEL: 'INFO',
            POWERTOOLS_SERVICE_NAME: 'switchyard',
            API_ALLOW_SKIP_PAGINATION: 'false',
          }),
        },
      });
      // No --enable-source-maps: it would parse the source map at every cold start; the logger maps logged stacks.
      expect(fn.Properties!.Environment.Variables.NODE_OPTIONS).toBeUndefined();
    }
  });

  it('answers API requests within the configured timeout', () => {
    for (const { fn } of functionsWithStatements(apiStacks)) expect(fn.Properties!.Timeout).toBe(10);
  });

  it('keeps its logs for 30 days', () => {
    for (const stack of allStacks) {
      for (const [, logGroup] of ofType(resourcesOf(stack), 'AWS::Logs::LogGroup')) expect(logGroup.Properties!.RetentionInDays).toBe(30);
    }
  });

  it('is never granted dynamodb:*, Scan or any wildcard action', () => {
    const actions = actionsOf(functions.flatMap((fn) => fn.statements));

    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });
});

describe('table access derived from the spec', () => {
  const functions = functionsWithStatements(apiStacks);
  const tableArn = { 'Fn::ImportValue': expect.stringContaining(':ExportsOutputFnGetAttTable') };

  // The rule, stated here independently of infra/api-stack.ts: reads for GET and public endpoints,
  // reads and writes for the others.
  const readOnly = (route: (typeof routes)[number]) => route.spec.method === 'GET' || route.spec.permission === 'public';

  it.each(routes.map((route) => [`${route.spec.method} ${fullPath(route.spec)}`, route]))('%s gets exactly the table actions its spec implies', (description, route) => {
    const fn = functions.find(byDescription(description))!;
    const expected = readOnly(route) ? tableReadActions : [...tableReadActions, ...tableWriteActions];

    expect(dynamoItemActions(fn.statements).sort()).toEqual([...expected].sort());
  });

  it('has both kinds of endpoint, so the rule above is exercised both ways', () => {
    expect(routes.some(readOnly)).toBe(true);
    expect(routes.some((route) => !readOnly(route))).toBe(true);
  });

  it('reads the table and each of its indexes by name, and writes the table only', () => {
    const writer = functions.find(({ statements }) => actionsOf(statements).includes('dynamodb:PutItem'))!;
    const read = writer.statements.find((statement) => actionsOf([statement]).includes('dynamodb:Query'))!;
    const write = writer.statements.find((statement) => statement.Effect === 'Allow' && actionsOf([statement]).includes('dynamodb:PutItem'))!;

    expect(read.Resource).toEqual([
      tableArn,
      ...tableSchema.indexes.map((index) => ({ 'Fn::Join': ['', [tableArn, `/index/${index.indexName}`]] })),
    ]);
    expect(write.Resource).toEqual(tableArn);
  });

  it('gives the unknown-route function no table access at all', () => {
    const fn = functions.find((candidate) => /Unknown API endpoint/.test(candidate.fn.Properties!.Description))!;

    expect(dynamoItemActions(fn.statements)).toEqual([]);
  });
});

describe('the data stack', () => {
  const template = Template.fromStack(data);

  it('has the single table of shared/db/table-schema.ts, on demand, with its TTL and a stream of new images', () => {
    const keyNames = [tableSchema.partitionKey, tableSchema.sortKey, ...tableSchema.indexes.flatMap((index) => [index.partitionKey, index.sortKey])];

    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'switchyard-prod',
      KeySchema: [
        { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayEquals(keyNames.map((AttributeName) => ({ AttributeName, AttributeType: 'S' }))),
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: tableSchema.ttlAttribute, Enabled: true },
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
  });

  it('has every index of the schema with its projection', () => {
    const indexes: readonly { indexName: string; partitionKey: string; sortKey: string; nonKeyAttributes?: readonly string[] }[] =
      tableSchema.indexes;

    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: indexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: index.nonKeyAttributes?.length
          ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.nonKeyAttributes] }
          : { ProjectionType: 'KEYS_ONLY' },
      })),
    });
  });

  it('protects the table: point-in-time recovery, deletion protection, retained on delete and replace', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('the scheduler stack', () => {
  const template = Template.fromStack(scheduler);
  const resources = resourcesOf(scheduler);
  const [advancerId, advancer] = ofType(resources, 'AWS::Lambda::Function')[0];
  const [queueId] = ofType(resources, 'AWS::SQS::Queue')[0];

  it('runs the ramp advancer every minute, retrying delivery twice at most, with a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [advancerId, 'Arn'] },
          Id: Match.anyValue(),
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        },
      ],
    });
    expect(scheduler.advancer.entry).toBe(rampAdvancerHandler);
  });

  it('does not retry a failed run (the next tick does the work) and keeps the failure in the queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: advancerId },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    expect(advancer.Properties!.DeadLetterConfig).toEqual({ TargetArn: { 'Fn::GetAtt': [queueId, 'Arn'] } });
    expect(advancer.Properties!.Timeout).toBeLessThan(60);
  });

  it('lets the advancer read the table and its indexes and write the table', () => {
    const [{ statements }] = functionsWithStatements([scheduler]);

    expect(dynamoItemActions(statements).sort()).toEqual([...tableReadActions, ...tableWriteActions].sort());
  });

  it('alarms on advancer errors and on any message in the dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: advancerId } }],
      Threshold: 1,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Threshold: 1,
    });
  });

  it('encrypts the dead-letter queue and refuses plain HTTP', () => {
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });
});

describe('the events stack', () => {
  const template = Template.fromStack(events);
  const resources = resourcesOf(events);
  const [publisherId] = ofType(resources, 'AWS::Lambda::Function').find(([id]) => id.startsWith('Publisher'))!;
  const [pusherId] = ofType(resources, 'AWS::Lambda::Function').find(([id]) => id.startsWith('ProxyPusher'))!;
  const [busId] = ofType(resources, 'AWS::Events::EventBus')[0];
  const [queueId] = ofType(resources, 'AWS::SQS::Queue')[0];
  const mappingOf = (functionId: string) =>
    ofType(resources, 'AWS::Lambda::EventSourceMapping').find(([, mapping]) => mapping.Properties!.FunctionName.Ref === functionId)![1];
  const functionOf = (functionId: string) => functionsWithStatements([events]).find(({ id }) => id === functionId)!;

  it('feeds only inserted event items from the table stream to the publisher, with partial batch failures', () => {
    const mapping = mappingOf(publisherId);

    expect(mapping.Properties).toMatchObject({
      FunctionName: { Ref: publisherId },
      EventSourceArn: { 'Fn::ImportValue': expect.stringContaining('StreamArn') },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    expect(JSON.parse(mapping.Properties!.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { entityType: { S: ['EVENT'] } } },
    });
  });

  it('publishes to its own bus, which is the only thing it may put events on', () => {
    const { fn, statements } = functionOf(publisherId);

    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'switchyard-prod' });
    expect(fn.Properties!.Environment.Variables.EVENT_BUS_NAME).toEqual({ Ref: busId });
    expect(statements.filter((statement) => actionsOf([statement]).includes('events:PutEvents'))).toEqual([
      expect.objectContaining({ Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } }),
    ]);
    expect(dynamoItemActions(statements)).toEqual([]);
  });

  it('feeds only SDK payload version writes from the table stream to the proxy pusher, which may only read the table', () => {
    const mapping = mappingOf(pusherId);
    const { fn, statements } = functionOf(pusherId);

    expect(mapping.Properties).toMatchObject({
      EventSourceArn: { 'Fn::ImportValue': expect.stringContaining('StreamArn') },
      StartingPosition: 'LATEST',
      BisectBatchOnFunctionError: true,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    expect(JSON.parse(mapping.Properties!.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { NewImage: { entityType: { S: ['SDK_VERSION'] } } },
    });
    expect(fn.Properties!.Timeout).toBe(60);
    expect(dynamoItemActions(statements).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    expect(actionsOf(statements)).not.toContain('events:PutEvents');
  });

  it('alarms on publisher and pusher errors, on a growing stream backlog and on the dead-letter queue', () => {
    const metricNames = ofType(resources, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties!.MetricName);

    expect(metricNames.sort()).toEqual(['ApproximateNumberOfMessagesVisible', 'Errors', 'Errors', 'IteratorAge']);
  });
});

describe('IAM grants, decided in infra/grants.ts for the stacks and the local runtime alike', () => {
  const tableArn = { 'Fn::ImportValue': expect.stringContaining(':ExportsOutputFnGetAttTable') };
  /** Every function of the app, with its handler and the statements of its role. */
  const functions = built.app.node
    .findAll()
    .filter((construct): construct is ServiceFunction => construct instanceof ServiceFunction)
    .map((fn) => {
      const stack = NestedStack.of(fn);
      const roleId = stack.getLogicalId(fn.role!.node.defaultChild as CfnElement);
      const statements = ofType(resourcesOf(stack), 'AWS::IAM::Policy')
        .filter(([, policy]) => (policy.Properties!.Roles as unknown[]).some((r) => ref(r) === roleId))
        .flatMap(([, policy]) => policy.Properties!.PolicyDocument.Statement as Statement[]);
      return { entry: fn.entry, statements };
    });
  const denies = (statements: Statement[]) => statements.filter((statement) => statement.Effect === 'Deny');

  it('covers every function: routes, the unknown route, the scheduler, the stream consumers and the analysis', () => {
    expect(functions.map((fn) => fn.entry).sort()).toEqual(allHandlers().sort());
  });

  it('gives each role exactly the table actions the local runtime enforces for its handler', () => {
    for (const { entry, statements } of functions) {
      expect({ entry, actions: dynamoItemActions(statements).sort() }).toEqual({ entry, actions: [...tableActions(tableAccessOf(entry))].sort() });
    }
  });

  it('denies every writer any write whose leading keys include an API key, whatever else it is granted', () => {
    const writers = functions.filter(({ statements }) => dynamoItemActions(statements).includes('dynamodb:PutItem'));
    expect(writers.length).toBeGreaterThan(0);
    for (const { statements } of writers) {
      expect(denies(statements)).toEqual([
        {
          Effect: 'Deny',
          // CDK sorts a statement's actions.
          Action: [...writeDeniedActions].sort(),
          Resource: tableArn,
          // ForAnyValue: a batch whose items include one API key is denied (ForAllValues would let it through).
          Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] } },
        },
      ]);
    }
    expect([...writeDeniedActions].sort()).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
  });

  it('names the partition keys API keys are stored under', () => {
    const pattern = new RegExp(`^${writeDeniedLeadingKeys[0].replace('*', '.*')}$`);
    expect(keys.apiKey('0123abcd').PK).toMatch(pattern);
    expect(keys.organization('org_1').PK).not.toMatch(pattern);
  });

  it('gives readers no Deny statement (they may write nothing)', () => {
    for (const { statements } of functions.filter(({ entry }) => tableAccessOf(entry) !== 'read-write')) expect(denies(statements)).toEqual([]);
  });
});
