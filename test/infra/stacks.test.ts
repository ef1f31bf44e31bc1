import { CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { publicSdkSpecs } from '../../infra/api-stack';
import { tableAccessOf, tableActions, writeDeniedActions, writeDeniedLeadingKeys } from '../../infra/grants';
import { allHandlers, rampAdvancerHandler, ServiceFunction, tableReadActions, tableWriteActions } from '../../infra/lambda';
import { ORIGIN_VERIFY_ENV, ORIGIN_VERIFY_HEADER } from '../../shared/api/origin';
import { keys } from '../../shared/db/keys';
import { routes, unknownRouteHandler } from '../../shared/contracts/registry';
import { fullPath } from '../../shared/contracts/spec';
import { tableSchema } from '../../shared/db/table-schema';
import { ofType, resourcesOf, synthesize, type CfnResource } from './synth';

// One synth for the whole file.
const built = synthesize();
const { api, data, scheduler, events, waf } = built;
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

  it.each([
    ['GET /api/v1/docs', 'getApiDocs', 'functions/system/get-api-docs.ts'],
    ['GET /api/v1/docs/{asset}', 'getApiDocsAsset', 'functions/system/get-api-docs-asset.ts'],
  ])('routes %s, open to anyone, to the function of %s, built from its own handler file', (key, operationId, handler) => {
    const fn = api.functions.get(operationId)!;
    const fnStack = Stack.of(fn);
    const matching = ofType(resourcesOf(fnStack), 'AWS::ApiGatewayV2::Route').filter(([, route]) => route.Properties!.RouteKey === key);

    expect(matching).toHaveLength(1);
    expect(matching[0][1].Properties!.AuthorizationType ?? 'NONE').toBe('NONE');
    expect(routeTargets().find((target) => target.routeKey === key)?.fn).toBe(`${fnStack.node.path}/${fnStack.getLogicalId(fn.node.defaultChild as CfnElement)}`);
    expect(resourcesOf(fnStack)[fnStack.getLogicalId(fn.node.defaultChild as CfnElement)]).toMatchObject({ Type: 'AWS::Lambda::Function', Properties: { Description: key } });
    expect(fn.entry).toBe(handler);
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

  it('reserves concurrency for remote evaluation and the SDK payload, the routes anyone may call, and for no other function', () => {
    const reserved = functionsWithStatements(apiStacks)
      .filter(({ fn }) => fn.Properties!.ReservedConcurrentExecutions !== undefined)
      .map(({ fn }) => [fn.Properties!.Description, fn.Properties!.ReservedConcurrentExecutions]);

    expect(reserved.sort()).toEqual([
      ['GET /api/features/{clientKey}', 50],
      ['POST /api/eval/{clientKey}', 50],
    ]);
  });

  it('reserves what the context says, and nothing for 0', () => {
    const { api: configured } = synthesize({ remoteEvalConcurrency: '20', sdkPayloadConcurrency: '0' });
    const reserved = [configured, ...configured.node.children.filter(NestedStack.isNestedStack)]
      .flatMap((stack) => ofType(resourcesOf(stack), 'AWS::Lambda::Function'))
      .filter(([, fn]) => fn.Properties!.ReservedConcurrentExecutions !== undefined)
      .map(([, fn]) => [fn.Properties!.Description, fn.Properties!.ReservedConcurrentExecutions]);

    expect(reserved).toEqual([['POST /api/eval/{clientKey}', 20]]);
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

/** The distribution's config in a synthesized API stack. */
const distributionOf = (stack: Stack) => ofType(resourcesOf(stack), 'AWS::CloudFront::Distribution')[0][1].Properties!.DistributionConfig;
const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-aaaa-bbbb-cccc-0123456789ab';

describe('the WAF in front of CloudFront', () => {
  const webAcl = () => ofType(resourcesOf(waf!), 'AWS::WAFv2::WebACL')[0][1].Properties!;
  const rule = (name: string) => (webAcl().Rules as { Name: string }[]).find((candidate) => candidate.Name === name) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('is a CloudFront-scoped web ACL in a stack of its own in us-east-1, deployed before the API', () => {
    expect(waf!.stackName).toBe('switchyard-prod-waf');
    expect(waf!.region).toBe('us-east-1');
    expect(webAcl()).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    expect(api.dependencies).toContain(waf);
  });

  it('attaches to the distribution through the WAF stack output, read across regions at deploy time', () => {
    const output = Template.fromStack(waf!).toJSON().Outputs.WebAclArn;

    expect(output.Value).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^WebAcl/), 'Arn'] });
    expect(distributionOf(api).WebACLId).toEqual({
      'Fn::GetStackOutput': { StackName: 'switchyard-prod-waf', OutputName: 'WebAclArn', Region: 'us-east-1' },
    });
  });

  it("runs AWS's IP reputation list, core rule set and known bad inputs", () => {
    const managed = (webAcl().Rules as { Statement: { ManagedRuleGroupStatement?: { VendorName: string; Name: string } } }[])
      .map((candidate) => candidate.Statement.ManagedRuleGroupStatement)
      .filter(Boolean);

    expect(managed.map((group) => `${group!.VendorName}/${group!.Name}`).sort()).toEqual([
      'AWS/AWSManagedRulesAmazonIpReputationList',
      'AWS/AWSManagedRulesCommonRuleSet',
      'AWS/AWSManagedRulesKnownBadInputsRuleSet',
    ]);
    for (const name of ['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet']) {
      expect(rule(name).OverrideAction).toEqual({ None: {} });
    }
  });

  it('only counts bodies over 8 KB (the core rule set blocks them; bulk imports and feature values go up to 2 MB)', () => {
    expect(rule('AWSManagedRulesCommonRuleSet').Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
    ]);
  });

  it('limits each API key (each Authorization value) to 600 requests a minute, answering 429 in the API’s JSON error shape', () => {
    const limited = rule('RateLimitPerApiKey');
    const body = webAcl().CustomResponseBodies[limited.Action.Block.CustomResponse.CustomResponseBodyKey];

    expect(limited.Statement.RateBasedStatement).toEqual({
      Limit: 600,
      EvaluationWindowSec: 60,
      AggregateKeyType: 'CUSTOM_KEYS',
      CustomKeys: [{ Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
    });
    expect(limited.Action.Block.CustomResponse.ResponseCode).toBe(429);
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toEqual({ message: expect.any(String), code: 'too_many_requests' });
  });

  it('limits each client IP on the public SDK routes only (payload and remote evaluation) to 3000 requests a minute', () => {
    const limited = rule('RateLimitPublicRoutesPerIp');
    const paths = limited.Statement.RateBasedStatement.ScopeDownStatement.OrStatement.Statements.map(
      (statement: { ByteMatchStatement: { SearchString: string; PositionalConstraint: string; FieldToMatch: unknown } }) => statement.ByteMatchStatement,
    );

    expect(limited.Statement.RateBasedStatement).toMatchObject({ Limit: 3000, EvaluationWindowSec: 60, AggregateKeyType: 'IP' });
    expect(limited.Action.Block.CustomResponse.ResponseCode).toBe(429);
    expect(paths.map((path: { SearchString: string }) => path.SearchString).sort()).toEqual(['/api/eval/', '/api/features/']);
    for (const path of paths) expect(path).toMatchObject({ PositionalConstraint: 'STARTS_WITH', FieldToMatch: { UriPath: {} } });
  });

  it('takes its limits and count-only rules from context', () => {
    const tuned = synthesize({ wafKeyRequestsPerMinute: '120', wafPublicIpRequestsPerMinute: '50', wafCountOnlyRules: 'SizeRestrictions_BODY,CrossSiteScripting_BODY' });
    const rules = ofType(resourcesOf(tuned.waf!), 'AWS::WAFv2::WebACL')[0][1].Properties!.Rules as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    const byName = (name: string) => rules.find((candidate) => candidate.Name === name);

    expect(byName('RateLimitPerApiKey').Statement.RateBasedStatement.Limit).toBe(120);
    expect(byName('RateLimitPublicRoutesPerIp').Statement.RateBasedStatement.Limit).toBe(50);
    expect(byName('AWSManagedRulesCommonRuleSet').Statement.ManagedRuleGroupStatement.RuleActionOverrides.map((o: { Name: string }) => o.Name)).toEqual([
      'SizeRestrictions_BODY',
      'CrossSiteScripting_BODY',
    ]);
  });

  it('is left out with waf=false, and an existing web ACL is used as given instead of a stack', () => {
    const without = synthesize({ waf: 'false' });
    const existing = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/shared/0a1b2c3d-aaaa-bbbb-cccc-0123456789ab';
    const given = synthesize({ webAclArn: existing });

    expect(without.waf).toBeUndefined();
    expect(distributionOf(without.api).WebACLId).toBeUndefined();
    expect(given.waf).toBeUndefined();
    expect(distributionOf(given.api).WebACLId).toBe(existing);
  });
});

describe('throttling per route', () => {
  const stage = () => ofType(resourcesOf(api), 'AWS::ApiGatewayV2::Stage')[0];
  const publicKeys = publicSdkSpecs.map((spec) => `${spec.method} ${fullPath(spec)}`);

  it('gives the public SDK routes (payload, remote evaluation) their own limits, and keyed routes the stage default', () => {
    const [, resource] = stage();

    expect(publicKeys.sort()).toEqual(['GET /api/features/{clientKey}', 'POST /api/eval/{clientKey}']);
    expect(resource.Properties!.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
    expect(resource.Properties!.RouteSettings).toEqual(
      Object.fromEntries(publicKeys.map((key) => [key, { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 }])),
    );
  });

  it('names only routes that exist, and updates the stage after the nested stack that holds them', () => {
    const [, resource] = stage();
    const payloadStack = Stack.of(api.functions.get('getFeaturesForSdk')!);
    const nestedResourceId = api.getLogicalId((payloadStack as NestedStack).nestedStackResource! as CfnElement);

    expect(routeTargets().map((target) => target.routeKey)).toEqual(expect.arrayContaining(Object.keys(resource.Properties!.RouteSettings)));
    expect(Stack.of(api.functions.get('postRemoteEval')!)).toBe(payloadStack);
    expect((resource as { DependsOn?: string[] }).DependsOn).toContain(nestedResourceId);
  });

  it('takes the public limits from context', () => {
    const tuned = synthesize({ publicThrottleRateLimit: '300', publicThrottleBurstLimit: '600' });
    const [[, resource]] = ofType(resourcesOf(tuned.api), 'AWS::ApiGatewayV2::Stage');

    for (const key of publicKeys) expect(resource.Properties!.RouteSettings[key]).toEqual({ ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 });
  });
});

describe('reaching the API around CloudFront', () => {
  const apiFunctions = (stacks: Stack[]) => functionsWithStatements(stacks).map(({ fn }) => fn.Properties!);
  const stacksOf = (stack: Stack) => [stack, ...stack.node.children.filter(NestedStack.isNestedStack)];

  it('by default keeps the execute-api endpoint (ApiUrl) and checks no origin header, as before', () => {
    const template = Template.fromStack(api);

    expect(resourcesOf(api)[ofType(resourcesOf(api), 'AWS::ApiGatewayV2::Api')[0][0]].Properties!.DisableExecuteApiEndpoint).toBe(false);
    expect(template.toJSON().Outputs.ApiUrl).toBeDefined();
    expect(ofType(resourcesOf(api), 'AWS::SecretsManager::Secret')).toEqual([]);
    expect(distributionOf(api).Origins[0].OriginCustomHeaders).toBeUndefined();
    for (const fn of apiFunctions(apiStacks)) expect(fn.Environment.Variables[ORIGIN_VERIFY_ENV]).toBeUndefined();
  });

  it('with requireCloudFront, CloudFront sends a generated secret header and every endpoint function holds the same secret', () => {
    const guarded = synthesize({ requireCloudFront: 'true' });
    const [[secretId, secret]] = ofType(resourcesOf(guarded.api), 'AWS::SecretsManager::Secret');
    const [header] = distributionOf(guarded.api).Origins[0].OriginCustomHeaders;
    const endpointFunctions = apiFunctions(stacksOf(guarded.api)).filter((fn) => !/Unknown API endpoint/.test(fn.Description));

    expect(secret.Properties!.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    expect(header.HeaderName).toBe(ORIGIN_VERIFY_HEADER);
    expect(header.HeaderValue).toEqual({ 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] });
    expect(endpointFunctions).toHaveLength(routes.length);
    for (const fn of endpointFunctions) {
      const [, parts] = fn.Environment.Variables[ORIGIN_VERIFY_ENV]['Fn::Join'];
      expect(parts[0]).toBe('{{resolve:secretsmanager:');
      expect(parts[2]).toBe(':SecretString:::}}');
    }
  });

  it('with disableExecuteApiEndpoint, turns the default endpoint off and reaches the API by its custom origin domain', () => {
    const closed = synthesize({ disableExecuteApiEndpoint: 'true', originDomainName: 'origin.flags.example.com', originCertificateArn: certificateArn });
    const resources = resourcesOf(closed.api);
    const [[domainId, domain]] = ofType(resources, 'AWS::ApiGatewayV2::DomainName');
    const outputs = Template.fromStack(closed.api).toJSON().Outputs;

    expect(ofType(resources, 'AWS::ApiGatewayV2::Api')[0][1].Properties!.DisableExecuteApiEndpoint).toBe(true);
    expect(domain.Properties).toMatchObject({
      DomainName: 'origin.flags.example.com',
      DomainNameConfigurations: [expect.objectContaining({ CertificateArn: certificateArn, EndpointType: 'REGIONAL' })],
    });
    expect(ofType(resources, 'AWS::ApiGatewayV2::ApiMapping')[0][1].Properties).toMatchObject({ DomainName: { Ref: domainId } });
    expect(distributionOf(closed.api).Origins[0].DomainName).toEqual({ Ref: domainId });
    expect(outputs.ApiUrl).toBeUndefined();
    expect(outputs.OriginDnsTarget.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
  });
});

describe('every function', () => {
  const functions = functionsWithStatements(allStacks);

  it('never lets proxy pushes go to local addresses: PROXY_PUSH_ALLOW_LOCAL is for npm start only', () => {
    expect(functions.length).toBeGreaterThan(0);
    for (const { fn } of functions) expect(Object.keys(fn.Properties!.Environment?.Variables ?? {})).not.toContain('PROXY_PUSH_ALLOW_LOCAL');
  });

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
  const [bucketId] = ofType(resources, 'AWS::S3::Bucket')[0];
  const mappingOf = (functionId: string) =>
    ofType(resources, 'AWS::Lambda::EventSourceMapping').find(([, mapping]) => mapping.Properties!.FunctionName.Ref === functionId)![1];
  const functionOf = (functionId: string) => functionsWithStatements([events]).find(({ id }) => id === functionId)!;

  it('feeds only inserted event items from the table stream to the publisher, with partial batch failures', () => {
    const mapping = mappingOf(publisherId);

    expect(mapping.Properties).toMatchObject({
      FunctionName: { Ref: publisherId },
      EventSourceArn: { 'Fn::ImportValue': expect.stringContaining('StreamArn') },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [bucketId, 'Arn'] } } },
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
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [bucketId, 'Arn'] } } },
    });
    expect(JSON.parse(mapping.Properties!.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { NewImage: { entityType: { S: ['SDK_VERSION'] } } },
    });
    expect(fn.Properties!.Timeout).toBe(60);
    expect(dynamoItemActions(statements).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    expect(actionsOf(statements)).not.toContain('events:PutEvents');
  });

  it('keeps the batches the consumers give up on, records and all, in a private bucket that announces each on the dead-letter queue', () => {
    const [, bucket] = ofType(resources, 'AWS::S3::Bucket')[0];

    expect(ofType(resources, 'AWS::S3::Bucket')).toHaveLength(1);
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: [expect.objectContaining({ ExpirationInDays: 30, Status: 'Enabled' })] },
    });
    expect(bucket.Properties!.NotificationConfiguration).toEqual({ EventBridgeConfiguration: { EventBridgeEnabled: true } });
    const [ruleId] = ofType(resources, 'AWS::Events::Rule')[0];
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['aws.s3'], 'detail-type': ['Object Created'], detail: { bucket: { name: [{ Ref: bucketId }] } } },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } } }),
        ]),
      },
    });
    // No function of CDK's own (a custom resource) besides the service's.
    expect(ofType(resources, 'AWS::Lambda::Function').map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(['ProxyPusher', 'Publisher']);
  });

  it.each([['publisher', () => publisherId], ['proxy pusher', () => pusherId]])('lets the %s add failed batches to the bucket, and nothing more there', (_name, id) => {
    const { statements } = functionOf(id());
    const onBucket = statements.filter((statement) => JSON.stringify(statement.Resource).includes(bucketId));

    expect(onBucket).toEqual([
      expect.objectContaining({ Action: 's3:PutObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] } }),
      expect.objectContaining({ Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [bucketId, 'Arn'] } }),
    ]);
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
