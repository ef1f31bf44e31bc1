import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, StartingPosition, type IEventSourceDlq } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EVENT_SOURCE } from '../functions/events/publish-events';
import { alarm, deadLetterAlarm } from './alarms';
import { acknowledgeWildcards } from './nag';
import type { SwitchyardConfig } from './config';
import { eventPublisherHandler, proxyPusherHandler, ServiceFunction } from './lambda';
import { eventPublisher, proxyPusher, type StreamConsumer } from './stream-consumers';

/**
 * The on-failure destination of a stream consumer: a bucket, where Lambda writes the whole batch it
 * gave up on (the records' content, not only their stream positions, which the stream forgets after
 * 24 hours; an SQS or SNS destination would get only the positions). The function may only add
 * objects, not read them back (CDK's S3OnFailureDestination would grant it read and delete too).
 */
const failedRecordsBucket = (bucket: Bucket): IEventSourceDlq => ({
  bind: (_mapping, fn) => {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects('*')] }));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    acknowledgeWildcards(fn.role!, [bucket.arnForObjects('*')], 'Lambda names each failed batch object itself (under aws/lambda/<mapping>/<shard>/...): the function may add objects anywhere in the failed-records bucket, and nothing else there.');
    return { destination: bucket.bucketArn };
  },
});

/** The event source mapping of a stream consumer, as infra/stream-consumers.ts defines it (and `npm start` runs it). */
const tableStream = (table: ITable, consumer: StreamConsumer, failedRecords: Bucket) =>
  new DynamoEventSource(table, {
    startingPosition: StartingPosition[consumer.startingPosition],
    batchSize: consumer.batchSize,
    maxBatchingWindow: Duration.seconds(consumer.maxBatchingWindowSeconds),
    reportBatchItemFailures: consumer.reportBatchItemFailures,
    bisectBatchOnError: true,
    retryAttempts: consumer.retryAttempts,
    maxRecordAge: Duration.seconds(consumer.maxRecordAgeSeconds),
    onFailure: failedRecordsBucket(failedRecords),
    filters: [FilterCriteria.filter(consumer.filter)],
  });

/** How long a failed batch stays in the bucket to be looked at or replayed. */
const FAILED_RECORDS_DAYS = 30;

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
  readonly failedRecords: Bucket;

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
        'This queue is itself where failures land: a notice for every batch of stream records the publisher or the proxy pusher gave up on (cdk-nag recognises Lambda dead-letter queues, not these).',
    });

    // The batches the stream consumers gave up on, records and all, for as long as someone may want to replay them.
    this.failedRecords = new Bucket(this, 'FailedRecords', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(FAILED_RECORDS_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.failedRecords).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Holds only the stream batches the consumers gave up on, written by Lambda; every new one is announced on the dead-letter queue, which alarms, and the reads are in CloudTrail.',
    });
    // Each failed batch written to the bucket puts a notice (its object key) on the queue, whose alarm says someone should look.
    // S3 tells EventBridge (set on the bucket itself: CDK's own way goes through a custom resource function).
    (this.failedRecords.node.defaultChild as CfnBucket).notificationConfiguration = { eventBridgeConfiguration: { eventBridgeEnabled: true } };
    new Rule(this, 'FailedRecordsNotice', {
      description: 'A stream batch given up on was written to the failed-records bucket',
      eventPattern: { source: ['aws.s3'], detailType: ['Object Created'], detail: { bucket: { name: [this.failedRecords.bucketName] } } },
      targets: [new SqsQueue(this.deadLetterQueue)],
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
    this.publisher.addEventSource(tableStream(table, eventPublisher, this.failedRecords));

    this.proxyPusher = new ServiceFunction(this, 'ProxyPusher', {
      entry: proxyPusherHandler,
      description: 'Pushes changed SDK payloads to the GrowthBook Proxy of each affected SDK connection',
      config,
      table,
      // A push waits at most 5 s, then 5 s before its one retry and 5 s more: pushes run side by side.
      timeout: Duration.seconds(60),
      otherUnscopedActions: 'dynamodb:ListStreams, granted for the table stream event source, does not support resource-level permissions either.',
    });
    this.proxyPusher.addEventSource(tableStream(table, proxyPusher, this.failedRecords));

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
    new CfnOutput(this, 'FailedRecordsBucket', { value: this.failedRecords.bucketName, description: 'Stream batches the publisher or the proxy pusher gave up on, with their records' });
    new CfnOutput(this, 'EventBusArn', { value: this.bus.eventBusArn, description: `Subscribe with rules matching source "${EVENT_SOURCE}"` });
  }
}
