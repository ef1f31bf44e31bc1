import { Stack, Validations, type App } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * cdk-nag's AwsSolutions rules run as a validation plugin at every synth and fail it on any
 * finding that is not acknowledged in code (`Validations.of(construct).acknowledge`, with a reason)
 * next to the construct it is about.
 */
export function addChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}

/** A resolved CloudFormation value written the way cdk-nag names it in a finding (`<Logical.Arn>`, `<AWS::Region>`). */
function nagText(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (v.Ref) return `<${v.Ref}>`;
  if (v['Fn::GetAtt']) return `<${v['Fn::GetAtt'].join('.')}>`;
  if (v['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(nagText).join(v['Fn::Join'][0]);
  return JSON.stringify(value);
}

/**
 * Acknowledges cdk-nag's wildcard finding (AwsSolutions-IAM5) for exactly these resources of the
 * construct's policies, each named as cdk-nag names it, so any other wildcard still fails the synth.
 */
export function acknowledgeWildcards(construct: IConstruct, resources: string[], reason: string): void {
  const stack = Stack.of(construct);
  for (const resource of new Set(resources.map((r) => nagText(stack.resolve(r))))) {
    Validations.of(construct).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
  }
}
