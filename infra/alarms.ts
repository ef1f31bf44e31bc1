import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { SwitchyardConfig } from './config';

export interface AlarmOptions {
  metric: IMetric;
  threshold: number;
  description: string;
  evaluationPeriods?: number;
  datapointsToAlarm?: number;
}

/** An alarm at or above `threshold` that notifies the configured SNS topic, if any. No data is not a breach. */
export function alarm(scope: Construct, id: string, config: SwitchyardConfig, options: AlarmOptions): Alarm {
  const created = new Alarm(scope, id, {
    metric: options.metric,
    threshold: options.threshold,
    evaluationPeriods: options.evaluationPeriods ?? 1,
    datapointsToAlarm: options.datapointsToAlarm,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: options.description,
  });
  if (config.alarmTopicArn) {
    created.addAlarmAction(new SnsAction(Topic.fromTopicArn(scope, `${id}Topic`, config.alarmTopicArn)));
  }
  return created;
}

/** Alarm as soon as a dead-letter queue holds a message: something failed for good and needs a look. */
export function deadLetterAlarm(scope: Construct, id: string, config: SwitchyardConfig, queue: IQueue, what: string): Alarm {
  return alarm(scope, id, config, {
    metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(1) }),
    threshold: 1,
    description: `${what} landed in its dead-letter queue`,
  });
}
