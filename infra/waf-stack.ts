import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { getFeaturesForSdk, postRemoteEval } from '../shared/contracts/sdk-payload';
import { fullPath } from '../shared/contracts/spec';
import type { SwitchyardConfig } from './config';

/** A web ACL for CloudFront must be created in us-east-1, whatever region the API is in. */
export const WAF_REGION = 'us-east-1';

/** The output the API stack reads (with `Fn::GetStackOutput`) to attach the web ACL to its distribution. */
export const WEB_ACL_ARN_OUTPUT = 'WebAclArn';

/** The public SDK routes' path prefixes (`/api/features/`, `/api/eval/`), from their specs. */
export const publicRoutePrefixes = [getFeaturesForSdk, postRemoteEval].map((spec) => fullPath(spec).replace(/\{[^}]+\}$/, ''));

export interface WafStackProps extends StackProps {
  config: SwitchyardConfig;
}

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

const managedGroup = (name: string, priority: number, countOnly: string[] = []): CfnWebACL.RuleProperty => ({
  name,
  priority,
  overrideAction: { none: {} },
  statement: {
    managedRuleGroupStatement: {
      vendorName: 'AWS',
      name,
      ...(countOnly.length ? { ruleActionOverrides: countOnly.map((rule) => ({ name: rule, actionToUse: { count: {} } })) } : {}),
    },
  },
  visibilityConfig: visibility(name),
});

/** The answer to a rate-limited request: the API's JSON error shape, with 429. */
const tooManyRequests: CfnWebACL.BlockActionProperty = {
  customResponse: { responseCode: 429, customResponseBodyKey: 'tooManyRequests', responseHeaders: [{ name: 'retry-after', value: '60' }] },
};

/**
 * The WAF in front of the API: a CloudFront web ACL (which must live in us-east-1, hence its own
 * stack) with AWS's IP reputation list, core rule set and known bad inputs, a rate limit per API key
 * (the `Authorization` header's value) and one per client IP on the public SDK routes. HTTP APIs
 * cannot carry a web ACL themselves, so it guards the CloudFront distribution in front of the API.
 */
export class WafStack extends Stack {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: WafStackProps) {
    super(scope, id, { ...props, env: { ...props.env, region: WAF_REGION } });
    const { config } = props;
    const publicRoutes: CfnWebACL.StatementProperty = {
      orStatement: {
        statements: publicRoutePrefixes.map((prefix) => ({
          byteMatchStatement: {
            fieldToMatch: { uriPath: {} },
            positionalConstraint: 'STARTS_WITH',
            searchString: prefix,
            textTransformations: [{ priority: 0, type: 'NONE' }],
          },
        })),
      },
    };

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `switchyard-${config.stage}`,
      description: `Switchyard ${config.stage}: managed rules and rate limits in front of the API`,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`switchyard-${config.stage}`),
      customResponseBodies: {
        tooManyRequests: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ message: 'Too many requests: retry after a minute', code: 'too_many_requests' }),
        },
      },
      rules: [
        managedGroup('AWSManagedRulesAmazonIpReputationList', 0),
        {
          // One aggregation instance per distinct Authorization value, i.e. per API key; requests
          // without the header (the public routes) are not counted by this rule.
          name: 'RateLimitPerApiKey',
          priority: 1,
          action: { block: tooManyRequests },
          statement: {
            rateBasedStatement: {
              limit: config.wafKeyRequestsPerMinute,
              evaluationWindowSec: 60,
              aggregateKeyType: 'CUSTOM_KEYS',
              customKeys: [{ header: { name: 'authorization', textTransformations: [{ priority: 0, type: 'NONE' }] } }],
            },
          },
          visibilityConfig: visibility('RateLimitPerApiKey'),
        },
        {
          name: 'RateLimitPublicRoutesPerIp',
          priority: 2,
          action: { block: tooManyRequests },
          statement: {
            rateBasedStatement: {
              limit: config.wafPublicIpRequestsPerMinute,
              evaluationWindowSec: 60,
              aggregateKeyType: 'IP',
              scopeDownStatement: publicRoutes,
            },
          },
          visibilityConfig: visibility('RateLimitPublicRoutesPerIp'),
        },
        managedGroup('AWSManagedRulesCommonRuleSet', 3, config.wafCountOnlyRules),
        managedGroup('AWSManagedRulesKnownBadInputsRuleSet', 4),
      ],
    });

    new CfnOutput(this, WEB_ACL_ARN_OUTPUT, { value: this.webAcl.attrArn, description: 'The web ACL of the API\'s CloudFront distribution' });
  }
}
