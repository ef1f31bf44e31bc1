import { App, Fn, Tags, type AppProps } from 'aws-cdk-lib';
import { AnalysisStack } from './analysis-stack';
import { ApiStack } from './api-stack';
import { readConfig } from './config';
import { DataStack } from './data-stack';
import { EventsStack } from './events-stack';
import { MonitoringStack } from './monitoring-stack';
import { addChecks } from './nag';
import { SchedulerStack } from './scheduler-stack';
import { WAF_REGION, WafStack, WEB_ACL_ARN_OUTPUT } from './waf-stack';

/** The whole deployment of one stage: the table, the API and its WAF, the ramp scheduler, event publishing, snapshot analysis and monitoring. */
export function createApp(props: AppProps = {}) {
  const app = new App(props);
  const config = readConfig(app.node);
  const name = (part: string) => `switchyard-${config.stage}-${part}`;

  const data = new DataStack(app, name('data'), { config, description: 'Switchyard: the single DynamoDB table' });
  const { table } = data;
  const analysis = new AnalysisStack(app, name('analysis'), { config, table, description: 'Switchyard: experiment snapshots on Athena (Step Functions)' });
  // A CloudFront web ACL lives in us-east-1, so in a stack of its own there; the API stack, in any
  // region, reads its ARN at deploy time with Fn::GetStackOutput (a cross-region weak reference).
  const waf = config.waf && !config.webAclArn
    ? new WafStack(app, name('waf'), { config, description: 'Switchyard: WAF web ACL of the API\'s CloudFront distribution (us-east-1)' })
    : undefined;
  const api = new ApiStack(app, name('api'), {
    config,
    table,
    snapshotStateMachine: analysis.stateMachine,
    webAclArn: config.webAclArn ?? (waf ? Fn.getStackOutput(waf.stackName, WEB_ACL_ARN_OUTPUT, WAF_REGION) : undefined),
    description: 'Switchyard: HTTP API, one Lambda per endpoint',
  });
  // `cdk deploy --all` deploys the web ACL before the distribution that names it.
  if (waf) api.addStackDependency(waf);
  const scheduler = new SchedulerStack(app, name('scheduler'), {
    config,
    table,
    snapshotStateMachine: analysis.stateMachine,
    description: 'Switchyard: ramp schedule advancer',
  });
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
  return { app, config, data, api, scheduler, events, analysis, monitoring, waf };
}

// `cdk synth` runs this file; tests import createApp instead.
if (require.main === module) createApp();
