import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EVENT_SOURCE } from '../functions/events/publish-events';
import { alarm, deadLetterAlarm } from './alarms';
import type { SwitchyardConfig } from './config';
import { eventPublisherHandler, proxyPusherHandler, ServiceFunction } from './lambda';
import { eventPublisher, proxyPusher, type StreamConsumer } from './stream-consumers';

/** The event source mapping of a stream consumer, as infra/stream-consumers.ts defines it (and `npm start` runs it). */
const tableStream = (table: ITable, consumer: StreamConsumer, deadLetterQueue: Queue) =>
  new DynamoEventSource(table, {
    startingPosition: StartingPosition[consumer.startingPosition],
    batchSize: consumer.batchSize,
    maxBatchingWindow: Duration.seconds(consumer.maxBatchingWindowSeconds),
    reportBatchItemFailures: consumer.reportBatchItemFailures,
    bisectBatchOnError: true,
    retryAttempts: consumer.retryAttempts,
    maxRecordAge: Duration.seconds(consumer.maxRecordAgeSeconds),
    onFailure: new SqsDlq(deadLetterQueue),
    filters: [FilterCriteria.filter(consumer.filter)],
  });

export interface EventsStackProps extends StackProps {
  config: SwitchyardConfig;
  table: ITable;
}

/**
 * Events the API records in the table (entity type EVENT) reach other systems through a custom
 * EventBridge bus: the table's stream, filtered to inserted event items, feeds a small publisher.
 * The same stream, filtered to SDK payload version writes, feeds the GrowthBook Proxy pusher.
 */
export class EventsStack extends Stack {
  readonly bus: EventBus;
  readonly publisher: ServiceFunction;
  readonly proxyPusher: ServiceFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: EventsStackProps) {
    super(scope, id, props);
    const { config, table } = props;

    this.bus = new EventBus(this, 'Bus', {
      eventBusName: config.eventBusName,
      description: `Switchyard events (source "${EVENT_SOURCE}")`,
    });

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the on-failure destination of the stream event source: it receives the stream positions of events that could not be published (cdk-nag recognises Lambda dead-letter queues, not event source destinations).',
    });

    this.publisher = new ServiceFunction(this, 'Publisher', {
      entry: eventPublisherHandler,
      description: 'Publishes new event items from the table stream to EventBridge',
      config,
      table,
      environment: { EVENT_BUS_NAME: this.bus.eventBusName },
      otherUnscopedActions: 'dynamodb:ListStreams, granted for the table stream event source, does not support resource-level permissions either.',
    });
    this.bus.grantPutEventsTo(this.publisher);
    this.publisher.addEventSource(tableStream(table, eventPublisher, this.deadLetterQueue));

    this.proxyPusher = new ServiceFunction(this, 'ProxyPusher', {
      entry: proxyPusherHandler,
      description: 'Pushes changed SDK payloads to the GrowthBook Proxy of each affected SDK connection',
      config,
      table,
      // A push waits at most 5 s, then 5 s before its one retry and 5 s more: pushes run side by side.
      timeout: Duration.seconds(60),
      otherUnscopedActions: 'dynamodb:ListStreams, granted for the table stream event source, does not support resource-level permissions either.',
    });
    this.proxyPusher.addEventSource(tableStream(table, proxyPusher, this.deadLetterQueue));

    alarm(this, 'PublisherErrorsAlarm', config, {
      metric: this.publisher.metricErrors({ statistic: 'Sum', period: Duration.minutes(5) }),
      threshold: 1,
      description: 'The event publisher failed',
    });
    alarm(this, 'PublisherIteratorAgeAlarm', config, {
      metric: this.publisher.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) }),
      threshold: Duration.minutes(10).toMilliseconds(),
      description: 'Events wait more than 10 minutes in the table stream before they are published',
    });
    alarm(this, 'ProxyPusherErrorsAlarm', config, {
      metric: this.proxyPusher.metricErrors({ statistic: 'Sum', period: Duration.minutes(5) }),
      threshold: 1,
      description: 'The GrowthBook Proxy pusher could not read the changed payloads',
    });
    deadLetterAlarm(this, 'DeadLetterAlarm', config, this.deadLetterQueue, 'A stream record the publisher or the proxy pusher gave up on');
    new CfnOutput(this, 'EventBusArn', { value: this.bus.eventBusArn, description: `Subscribe with rules matching source "${EVENT_SOURCE}"` });
  }
}
