import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { defaultConfig } from '../../infra/config';
import { rampAdvancerHandler, ServiceFunction } from '../../infra/lambda';
import { cdkContext, ofType, resourcesOf, synthesize, type CfnResource } from './synth';

/**
 * What the deployment gives operators: every function traced by X-Ray and writing EMF metric lines
 * into its stage's namespace, one dashboard over them, and the alarms on throttles and stream
 * failures that the other stacks do not hold.
 */
const built = synthesize();
const { api, data, scheduler, events, analysis, monitoring } = built;
const allStacks: Stack[] = [data, api, ...api.node.children.filter(NestedStack.isNestedStack), scheduler, events, analysis, monitoring];
const resources = resourcesOf(monitoring);
const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties!);

/** The dashboard's body with CloudFormation's joins flattened, references left as `{ref}`. */
function dashboardBody(): string {
  const [[, dashboard]] = ofType(resources, 'AWS::CloudWatch::Dashboard');
  const parts = dashboard.Properties!.DashboardBody['Fn::Join'][1] as unknown[];
  return parts.map((part) => (typeof part === 'string' ? part : '{ref}')).join('');
}

/** Every metric a dashboard graph draws: `[namespace, name, dim, value, …, options]` rows and `{ expression }` rows. */
function dashboardMetrics() {
  const body = JSON.parse(dashboardBody().replace(/\{ref\}/g, 'REF')) as { widgets: Array<{ properties: { title?: string; metrics?: unknown[][] } }> };
  return body.widgets.flatMap((widget) => (widget.properties.metrics ?? []).map((row) => ({ title: widget.properties.title, row })));
}

const statementsOf = (stack: Stack, fn: CfnResource) => {
  const stackResources = resourcesOf(stack);
  const role = fn.Properties!.Role['Fn::GetAtt'][0];
  return ofType(stackResources, 'AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties!.Roles as Array<{ Ref: string }>).some((r) => r.Ref === role))
    .flatMap(([, policy]) => policy.Properties!.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>);
};

describe('every function', () => {
  const functions = allStacks.flatMap((stack) => ofType(resourcesOf(stack), 'AWS::Lambda::Function').map(([, fn]) => ({ stack, fn })));

  it('is there to check: API, scheduler, events and analysis functions', () => {
    expect(functions.length).toBeGreaterThan(150);
    const withFunctions = allStacks.filter((stack) => stack !== data && stack !== monitoring);
    expect(new Set(functions.map(({ stack }) => stack.node.path))).toEqual(new Set(withFunctions.map((stack) => stack.node.path)));
  });

  it('is traced actively, with the X-Ray actions on its role', () => {
    for (const { stack, fn } of functions) {
      expect(fn.Properties!.TracingConfig).toEqual({ Mode: 'Active' });
      const xray = statementsOf(stack, fn).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('xray:')));
      // CDK merges statements on `*` (the stream consumers' dynamodb:ListStreams joins this one).
      expect(xray).toEqual([{ Effect: 'Allow', Action: expect.arrayContaining(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']), Resource: '*' }]);
    }
  });

  it("writes EMF metrics into its stage's namespace", () => {
    for (const { fn } of functions) {
      expect(fn.Properties!.Environment.Variables).toMatchObject({ METRICS: 'emf', METRICS_NAMESPACE: 'Switchyard/prod', POWERTOOLS_SERVICE_NAME: 'switchyard' });
    }
  });

  it("keeps Lambda's log filter at INFO when the logger is quieter, so metric lines still reach CloudWatch", () => {
    const app = new App({ context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Quiet');
    const config = { ...defaultConfig('quiet'), logLevel: 'ERROR' as const };
    new ServiceFunction(stack, 'Fn', { entry: rampAdvancerHandler, description: 'quiet', config, table: Table.fromTableName(stack, 'Table', 'quiet') });
    const [[, fn]] = ofType(resourcesOf(stack), 'AWS::Lambda::Function');

    expect(fn.Properties!.Environment.Variables).toMatchObject({ LOG_LEVEL: 'ERROR', METRICS: 'emf', METRICS_NAMESPACE: 'Switchyard/quiet' });
    expect(fn.Properties!.LoggingConfig.ApplicationLogLevel).toBe('INFO');
  });
});

describe('the dashboard', () => {
  const metrics = dashboardMetrics();
  const emf = (name: string) => metrics.filter(({ row }) => row[0] === 'Switchyard/prod' && row[1] === name);
  const searches = metrics.map(({ row }) => (row[0] as { expression?: string }).expression).filter(Boolean) as string[];

  it("is the stage's own", () => {
    const [[, dashboard]] = ofType(resources, 'AWS::CloudWatch::Dashboard');

    expect(dashboard.Properties!.DashboardName).toBe('switchyard-prod');
  });

  it('draws requests by status class and handler latency p50 and p99 beside API Gateway’s', () => {
    expect(emf('Requests').map(({ row }) => row[5])).toEqual(['2xx', '3xx', '4xx', '5xx']);
    expect(emf('Latency').map(({ row }) => (row.at(-1) as { stat: string }).stat)).toEqual(['p50', 'p99']);
    expect(metrics.filter(({ row }) => row[0] === 'AWS/ApiGateway' && row[1] === 'Latency').map(({ row }) => (row.at(-1) as { stat: string }).stat)).toEqual(['p50', 'p99']);
  });

  it('draws read and write units, latency and requests per operation, and the payload cache hit rate, by SEARCH over the EMF metrics', () => {
    for (const [name, statistic] of [['ReadUnits', 'Sum'], ['WriteUnits', 'Sum'], ['Latency', 'p99'], ['Latency', 'SampleCount'], ['PayloadCacheHit', 'Average']]) {
      expect(searches).toContainEqual(
        expect.stringContaining(`SEARCH('{"Switchyard/prod",Service,Operation} Service="switchyard" MetricName="${name}"', '${statistic}', 300)`),
      );
    }
  });

  it('draws DynamoDB calls and retries, snapshot durations, ramp transitions and stream records', () => {
    for (const name of ['DynamoCalls', 'DynamoRetries', 'SnapshotDuration', 'RampsAdvanced', 'RampsFailed', 'BoundariesFired', 'RecordsProcessed', 'RecordsFailed']) {
      expect(emf(name).length).toBeGreaterThan(0);
    }
    expect(emf('SnapshotDuration').map(({ row }) => [row[5], (row.at(-1) as { stat: string }).stat])).toEqual([
      ['success', 'p50'],
      ['success', 'p99'],
      ['success', 'Maximum'],
      ['error', 'SampleCount'],
    ]);
  });

  it("draws the table's throttles, the stream iterator ages, the dead-letter queues and the workers' errors and throttles", () => {
    const drawn = (namespace: string, name: string) => metrics.filter(({ row }) => row[0] === namespace && row[1] === name).length;

    expect(drawn('AWS/DynamoDB', 'ThrottledRequests')).toBe(8);
    expect(drawn('AWS/Lambda', 'IteratorAge')).toBe(2);
    expect(drawn('AWS/SQS', 'ApproximateNumberOfMessagesVisible')).toBe(2);
    expect(drawn('AWS/Lambda', 'Errors')).toBe(6);
    expect(drawn('AWS/Lambda', 'Throttles')).toBe(7);
  });
});

describe('the monitoring alarms', () => {
  const metricsOf = (alarm: Record<string, any>) =>
    (alarm.Metrics ?? []).filter((query: { MetricStat?: unknown }) => query.MetricStat).map((query: { MetricStat: { Metric: Record<string, any> } }) => query.MetricStat.Metric);

  it('alarm on DynamoDB throttling of any operation our client sends, sustained for 10 minutes', () => {
    const throttles = alarms.find((alarm) => metricsOf(alarm).some((metric: { MetricName: string }) => metric.MetricName === 'ThrottledRequests'))!;

    expect(metricsOf(throttles).map((metric: { Dimensions: Array<{ Name: string; Value: unknown }> }) => metric.Dimensions.find((d) => d.Name === 'Operation')!.Value).sort()).toEqual(
      ['BatchGetItem', 'BatchWriteItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems', 'UpdateItem'],
    );
    expect(throttles).toMatchObject({ Threshold: 1, EvaluationPeriods: 2, DatapointsToAlarm: 2, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
  });

  it('alarm on any Lambda throttle in the account', () => {
    const throttles = alarms.filter((alarm) => metricsOf(alarm).some((metric: { MetricName: string }) => metric.MetricName === 'Throttles'));

    expect(throttles).toHaveLength(1);
    expect(metricsOf(throttles[0])).toEqual([{ Namespace: 'AWS/Lambda', MetricName: 'Throttles' }]);
    expect(throttles[0]).toMatchObject({ Threshold: 1, EvaluationPeriods: 1, Metrics: [expect.objectContaining({ MetricStat: expect.objectContaining({ Stat: 'Sum', Period: 300 }) })] });
  });

  it("alarm on the proxy pusher's stream backlog, as the events stack does on the publisher's", () => {
    const iteratorAge = alarms.filter((alarm) => metricsOf(alarm).some((metric: { MetricName: string }) => metric.MetricName === 'IteratorAge'));

    expect(iteratorAge).toHaveLength(1);
    expect(iteratorAge[0]).toMatchObject({ Threshold: 600_000, Metrics: [expect.objectContaining({ MetricStat: expect.objectContaining({ Stat: 'Maximum' }) })] });
    expect(metricsOf(iteratorAge[0])).toEqual([
      { Namespace: 'AWS/Lambda', MetricName: 'IteratorAge', Dimensions: [{ Name: 'FunctionName', Value: { 'Fn::ImportValue': expect.stringMatching(/^switchyard-prod-events:.*ProxyPusher/) } }] },
    ]);
  });

  it('alarm when stream records keep failing for 15 minutes, from the consumers’ EMF lines', () => {
    const failed = alarms.find((alarm) => metricsOf(alarm).some((metric: { MetricName: string }) => metric.MetricName === 'RecordsFailed'))!;

    expect(metricsOf(failed)).toEqual([
      { Namespace: 'Switchyard/prod', MetricName: 'RecordsFailed', Dimensions: [{ Name: 'Function', Value: 'publish-events' }, { Name: 'Service', Value: 'switchyard' }] },
      { Namespace: 'Switchyard/prod', MetricName: 'RecordsFailed', Dimensions: [{ Name: 'Function', Value: 'push-to-proxies' }, { Name: 'Service', Value: 'switchyard' }] },
    ]);
    expect(failed).toMatchObject({ Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 3 });
  });

  it('are these four, none repeating an alarm of another stack', () => {
    expect(alarms).toHaveLength(4);
  });
});
