import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { alarm, deadLetterAlarm } from './alarms';
import type { SwitchyardConfig } from './config';
import { rampAdvancerHandler, ServiceFunction } from './lambda';

export interface SchedulerStackProps extends StackProps {
  config: SwitchyardConfig;
  table: ITable;
  /** The snapshot state machine, which the scheduler starts for monitored ramp steps. */
  snapshotStateMachine?: IStateMachine;
}

/**
 * Every minute, EventBridge runs the ramp advancer. A failed run is not retried by Lambda: the
 * next tick a minute later does the same work (every transition is conditional on the versions it
 * read, so runs never apply a step twice). What fails for good lands in a dead-letter queue.
 */
export class SchedulerStack extends Stack {
  readonly advancer: ServiceFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: SchedulerStackProps) {
    super(scope, id, props);
    const { config, table } = props;

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    this.advancer = new ServiceFunction(this, 'RampAdvancer', {
      entry: rampAdvancerHandler,
      description: 'Advances due ramp schedules (every minute)',
      config,
      table,
      // Below the one-minute period, so runs rarely overlap.
      timeout: Duration.seconds(50),
      deadLetterQueue: this.deadLetterQueue,
      retryAttempts: 0,
      maxEventAge: Duration.minutes(1),
      // Monitored ramp steps: their snapshots run on the state machine, whose time limit sets each one's watch deadline.
      ...(props.snapshotStateMachine
        ? {
            environment: {
              SNAPSHOT_STATE_MACHINE_ARN: props.snapshotStateMachine.stateMachineArn,
              SNAPSHOT_TIMEOUT_MS: String(config.analysisTimeoutMinutes * 60_000),
            },
          }
        : {}),
    });
    props.snapshotStateMachine?.grantStartExecution(this.advancer);

    new Rule(this, 'EveryMinute', {
      description: 'Runs the ramp schedule advancer',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(this.advancer, {
          retryAttempts: 2,
          maxEventAge: Duration.minutes(1),
          deadLetterQueue: this.deadLetterQueue,
        }),
      ],
    });

    alarm(this, 'AdvancerErrorsAlarm', config, {
      metric: this.advancer.metricErrors({ statistic: 'Sum', period: Duration.minutes(5) }),
      threshold: 1,
      description: 'The ramp schedule advancer failed',
    });
    deadLetterAlarm(this, 'DeadLetterAlarm', config, this.deadLetterQueue, 'A ramp advancer run');
  }
}
