import { App, Tags, type AppProps } from 'aws-cdk-lib';
import { AnalysisStack } from './analysis-stack';
import { ApiStack } from './api-stack';
import { readConfig } from './config';
import { DataStack } from './data-stack';
import { EventsStack } from './events-stack';
import { MonitoringStack } from './monitoring-stack';
import { addChecks } from './nag';
import { SchedulerStack } from './scheduler-stack';

/** The whole deployment of one stage: the table, the API, the ramp scheduler, event publishing, snapshot analysis and monitoring. */
export function createApp(props: AppProps = {}) {
  const app = new App(props);
  const config = readConfig(app.node);
  const name = (part: string) => `switchyard-${config.stage}-${part}`;

  const data = new DataStack(app, name('data'), { config, description: 'Switchyard: the single DynamoDB table' });
  const { table } = data;
  const analysis = new AnalysisStack(app, name('analysis'), { config, table, description: 'Switchyard: experiment snapshots on Athena (Step Functions)' });
  const api = new ApiStack(app, name('api'), {
    config,
    table,
    snapshotStateMachine: analysis.stateMachine,
    description: 'Switchyard: HTTP API, one Lambda per endpoint',
  });
  const scheduler = new SchedulerStack(app, name('scheduler'), { config, table, description: 'Switchyard: ramp schedule advancer' });
  const events = new EventsStack(app, name('events'), { config, table, description: 'Switchyard: events to EventBridge' });
  const monitoring = new MonitoringStack(app, name('monitoring'), {
    config,
    table,
    api,
    scheduler,
    events,
    analysis,
    description: 'Switchyard: dashboard, and alarms on throttles and stream failures',
  });

  Tags.of(app).add('application', 'switchyard');
  Tags.of(app).add('stage', config.stage);
  addChecks(app);
  return { app, config, data, api, scheduler, events, analysis, monitoring };
}

// `cdk synth` runs this file; tests import createApp instead.
if (require.main === module) createApp();
