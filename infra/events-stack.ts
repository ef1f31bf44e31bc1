import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EVENT_SOURCE } from '../functions/events/publish-events';
import { alarm, deadLetterAlarm } from './alarms';
import type { SwitchyardConfig } from './config';
import { eventPublisherHandler, ServiceFunction } from './lambda';

export interface EventsStackProps extends StackProps {
  config: SwitchyardConfig;
  table: ITable;
}

/**
 * Events the API records in the table (entity type EVENT) reach other systems through a custom
 * EventBridge bus: the table's stream, filtered to inserted event items, feeds a small publisher.
 */
export class EventsStack extends Stack {
  readonly bus: EventBus;
  readonly publisher: ServiceFunction;
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
      tableAccess: 'none',
      environment: { EVENT_BUS_NAME: this.bus.eventBusName },
      otherUnscopedActions: 'dynamodb:ListStreams, granted for the table stream event source, does not support resource-level permissions either.',
    });
    this.bus.grantPutEventsTo(this.publisher);
    this.publisher.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAge: Duration.days(1),
        onFailure: new SqsDlq(this.deadLetterQueue),
        // Only new event items wake the function; every other write to the table is filtered out.
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { entityType: { S: FilterRule.isEqual('EVENT') } } },
          }),
        ],
      }),
    );

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
    deadLetterAlarm(this, 'DeadLetterAlarm', config, this.deadLetterQueue, 'An event that could not be published');
    new CfnOutput(this, 'EventBusArn', { value: this.bus.eventBusArn, description: `Subscribe with rules matching source "${EVENT_SOURCE}"` });
  }
}
