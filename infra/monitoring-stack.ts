import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import {
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Operation, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { alarm } from './alarms';
import type { AnalysisStack } from './analysis-stack';
import type { ApiStack } from './api-stack';
import type { SwitchyardConfig } from './config';
import type { EventsStack } from './events-stack';
import { metricsNamespace, serviceName } from './lambda';
import type { SchedulerStack } from './scheduler-stack';

export interface MonitoringStackProps extends StackProps {
  config: SwitchyardConfig;
  table: ITable;
  api: ApiStack;
  scheduler: SchedulerStack;
  events: EventsStack;
  analysis: AnalysisStack;
}

/** The DynamoDB operations our client sends (shared/db/client.ts): what the throttle alarm sums. */
export const meteredOperations = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

const period = Duration.minutes(5);

/**
 * One dashboard for the whole stage, and the alarms no other stack holds: DynamoDB and Lambda
 * throttles, the proxy pusher's stream backlog, and stream records the publisher keeps failing.
 * (The API's 5xx rate and latency, the workers' errors, the dead-letter queues and the publisher's
 * backlog alarm in their own stacks.) The per-request and per-run numbers come from the EMF lines
 * the functions write (shared/metrics.ts); per-operation graphs use SEARCH, so the dashboard needs
 * no reference to each of the ~170 API functions and shows only the operations that were called.
 */
export class MonitoringStack extends Stack {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    const { config, table, api, scheduler, events, analysis } = props;
    const namespace = metricsNamespace(config);
    const emf = (metricName: string, dimensionsMap: Record<string, string>, statistic: string, label?: string) =>
      new Metric({ namespace, metricName, dimensionsMap: { Service: serviceName, ...dimensionsMap }, statistic, period, label });
    // Every operation's series of one metric, as the EMF lines made them (only those called in the range).
    const perOperation = (metricName: string, statistic: string, label: string) =>
      new MathExpression({
        expression: `SEARCH('{"${namespace}",Service,Operation} Service="${serviceName}" MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`,
        usingMetrics: {},
        label,
        period,
      });
    const graph = (title: string, left: IMetric[], options: { right?: IMetric[]; width?: number; leftLabel?: string } = {}) =>
      new GraphWidget({ title, left, right: options.right, width: options.width ?? 8, height: 6, leftYAxis: { label: options.leftLabel, showUnits: false } });
    const fn = (what: { functionName: string }, label: string) => ({ functionName: what.functionName, label });
    const lambdaMetric = (metricName: string, target: { functionName: string; label: string }, statistic = 'Sum') =>
      new Metric({ namespace: 'AWS/Lambda', metricName, dimensionsMap: { FunctionName: target.functionName }, statistic, period, label: target.label });

    // Alarms.
    const dynamoThrottles = table.metricThrottledRequestsForOperations({ operations: meteredOperations, period, label: 'DynamoDB throttled requests' });
    alarm(this, 'DynamoDbThrottlesAlarm', config, {
      metric: dynamoThrottles,
      threshold: 1,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      description: 'DynamoDB throttled requests to the table for 10 minutes (our client retries them; what still fails is a 503)',
    });
    const lambdaThrottles = new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum', period, label: 'Lambda throttles (account)' });
    alarm(this, 'LambdaThrottlesAlarm', config, {
      metric: lambdaThrottles,
      threshold: 1,
      description:
        'Lambda throttled invocations in this account and region (concurrency exhausted). Lambda publishes no per-application total, so other functions in the account count too.',
    });
    const pusher = fn(events.proxyPusher, 'proxy pusher');
    const publisher = fn(events.publisher, 'event publisher');
    alarm(this, 'ProxyPusherIteratorAgeAlarm', config, {
      metric: lambdaMetric('IteratorAge', pusher, 'Maximum'),
      threshold: Duration.minutes(10).toMilliseconds(),
      description: 'Payload changes wait more than 10 minutes in the table stream before they are pushed to proxies',
    });
    const recordsFailed = new MathExpression({
      expression: 'publisher + pusher',
      usingMetrics: {
        publisher: emf('RecordsFailed', { Function: 'publish-events' }, 'Sum'),
        pusher: emf('RecordsFailed', { Function: 'push-to-proxies' }, 'Sum'),
      },
      period,
      label: 'Stream records failed',
    });
    alarm(this, 'StreamRecordsFailedAlarm', config, {
      metric: recordsFailed,
      threshold: 1,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      description: 'Stream records kept failing for 15 minutes (they are retried, then land in the dead-letter queue)',
    });

    // The dashboard.
    const stage = api.stage;
    const statusClasses = ['2xx', '3xx', '4xx', '5xx'].map((statusClass) => emf('Requests', { StatusClass: statusClass }, 'Sum', statusClass));
    const latency = (statistic: string) => emf('Latency', {}, statistic, `handler ${statistic}`);
    const workers: Array<{ functionName: string; label: string }> = [
      fn(scheduler.advancer, 'ramp advancer'),
      publisher,
      pusher,
      fn(analysis.functions.plan, 'plan snapshot'),
      fn(analysis.functions.analyse, 'analyse snapshot'),
      fn(analysis.functions.fail, 'fail snapshot'),
    ];
    const snapshotDuration = (status: string, statistic: string) => emf('SnapshotDuration', { Status: status }, statistic, `${status} ${statistic}`);
    const records = (functionName: string, label: string) => [
      emf('RecordsProcessed', { Function: functionName }, 'Sum', `${label} processed`),
      emf('RecordsFailed', { Function: functionName }, 'Sum', `${label} failed`),
    ];
    const widgets: IWidget[][] = [
      [
        new TextWidget({
          markdown: `# Switchyard ${config.stage}\nPer-request numbers are the functions' EMF lines (namespace \`${namespace}\`); latency here is the handler's, API Gateway's is beside it.`,
          width: 24,
          height: 2,
        }),
      ],
      [
        graph('Requests by status class', statusClasses),
        graph('Latency p50 / p99 (ms)', [latency('p50'), latency('p99')], {
          right: [stage.metricLatency({ statistic: 'p50', period, label: 'API Gateway p50' }), stage.metricLatency({ statistic: 'p99', period, label: 'API Gateway p99' })],
        }),
        graph('API Gateway 4xx / 5xx', [stage.metricClientError({ statistic: 'Sum', period }), stage.metricServerError({ statistic: 'Sum', period })]),
      ],
      [
        graph('Latency p99 per operation (ms)', [perOperation('Latency', 'p99', 'p99')], { width: 12 }),
        graph('Requests per operation', [perOperation('Latency', 'SampleCount', 'requests')], { width: 12 }),
      ],
      [
        graph('DynamoDB read units per operation', [perOperation('ReadUnits', 'Sum', 'RCU')], { width: 12 }),
        graph('DynamoDB write units per operation', [perOperation('WriteUnits', 'Sum', 'WCU')], { width: 12 }),
      ],
      [
        graph('DynamoDB calls and client retries', [emf('DynamoCalls', {}, 'Sum', 'calls')], { right: [emf('DynamoRetries', {}, 'Sum', 'retries')] }),
        graph('DynamoDB throttles', [dynamoThrottles]),
        graph('SDK payload cache hit rate (%)', [
          new MathExpression({
            expression: `100 * SEARCH('{"${namespace}",Service,Operation} Service="${serviceName}" MetricName="PayloadCacheHit"', 'Average', ${period.toSeconds()})`,
            usingMetrics: {},
            label: 'hit rate',
            period,
          }),
        ]),
      ],
      [
        graph('Snapshot durations (ms)', ['p50', 'p99', 'Maximum'].map((statistic) => snapshotDuration('success', statistic)), {
          right: [snapshotDuration('error', 'SampleCount')],
        }),
        graph('Snapshot runs (Step Functions)', [
          analysis.stateMachine.metricSucceeded({ statistic: 'Sum', period }),
          analysis.stateMachine.metricFailed({ statistic: 'Sum', period }),
          analysis.stateMachine.metricTimedOut({ statistic: 'Sum', period }),
        ]),
        graph('Ramp advancer per run', [
          emf('RampsAdvanced', { Function: 'advance-ramp-schedules' }, 'Sum', 'advanced'),
          emf('RampsSkipped', { Function: 'advance-ramp-schedules' }, 'Sum', 'skipped'),
          emf('RampsFailed', { Function: 'advance-ramp-schedules' }, 'Sum', 'failed'),
          emf('BoundariesFired', { Function: 'advance-ramp-schedules' }, 'Sum', 'boundaries fired'),
        ]),
      ],
      [
        graph('Stream records', [...records('publish-events', 'publisher'), ...records('push-to-proxies', 'pusher')]),
        graph('Stream iterator age (ms)', [lambdaMetric('IteratorAge', publisher, 'Maximum'), lambdaMetric('IteratorAge', pusher, 'Maximum')]),
        graph('Dead-letter queues', [
          events.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period, label: 'events' }),
          scheduler.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period, label: 'scheduler' }),
        ]),
      ],
      [
        graph('Worker errors', workers.map((worker) => lambdaMetric('Errors', worker)), { width: 12 }),
        graph('Lambda throttles', [lambdaThrottles, ...workers.map((worker) => lambdaMetric('Throttles', worker))], { width: 12 }),
      ],
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `switchyard-${config.stage}`, widgets });
  }
}
