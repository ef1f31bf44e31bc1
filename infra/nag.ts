import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * cdk-nag's AwsSolutions rules run as a validation plugin at every synth and fail it on any
 * finding that is not acknowledged in code (`Validations.of(construct).acknowledge`, with a reason)
 * next to the construct it is about.
 */
export function addChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}
