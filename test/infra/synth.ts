import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import type { Stack } from 'aws-cdk-lib';
import { createApp } from '../../infra/app';

/** cdk.json's context, so tests synthesize with the same feature flags as `cdk synth`. */
export const cdkContext: Record<string, unknown> = JSON.parse(readFileSync(join(__dirname, '..', '..', 'cdk.json'), 'utf8')).context;

/**
 * Builds and synthesizes the whole app once, without bundling (templates do not depend on the
 * bundles' contents). cdk-nag runs as in `cdk synth`; the CloudFormation validation, which takes
 * seconds to start inside jest, is left to test/infra/validation.test.ts.
 */
export function synthesize(context: Record<string, unknown> = {}) {
  const built = createApp({
    context: { ...cdkContext, 'aws:cdk:bundling-stacks': [], ...context },
    builtinCloudFormationValidation: false,
  });
  built.app.synth();
  return built;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

/** The resources of a synthesized stack (nested stacks too), by logical id. */
export const resourcesOf = (stack: Stack): Record<string, CfnResource> => Template.fromStack(stack).toJSON().Resources;

/** The resources of one type, by logical id. */
export const ofType = (resources: Record<string, CfnResource>, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);
