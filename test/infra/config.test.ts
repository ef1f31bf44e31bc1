import { App } from 'aws-cdk-lib';
import { defaultConfig, readConfig } from '../../infra/config';

const configWith = (context: Record<string, unknown>) => readConfig(new App({ context }).node);

describe('readConfig', () => {
  it('uses the documented defaults when no context is given', () => {
    const config = configWith({});

    expect(config).toEqual(defaultConfig('prod'));
    expect(config).toMatchObject({ stage: 'prod', tableName: 'switchyard-prod', logLevel: 'INFO', allowSkipPagination: false, corsOrigins: ['*'] });
  });

  it('names the table and the bus after the stage unless they are given', () => {
    expect(configWith({ stage: 'staging' })).toMatchObject({ tableName: 'switchyard-staging', eventBusName: 'switchyard-staging' });
    expect(configWith({ stage: 'staging', tableName: 'flags' }).tableName).toBe('flags');
  });

  it('parses the strings `-c name=value` gives', () => {
    const config = configWith({
      logLevel: 'debug',
      allowSkipPagination: 'true',
      corsOrigins: 'https://app.example.com, https://www.example.com',
      throttleRateLimit: '50',
      throttleBurstLimit: '75',
      remoteEvalConcurrency: '0',
      sdkPayloadConcurrency: '200',
      memoryMb: '512',
      timeoutSeconds: '20',
      logRetentionDays: '90',
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
    });

    expect(config).toMatchObject({
      logLevel: 'DEBUG',
      allowSkipPagination: true,
      corsOrigins: ['https://app.example.com', 'https://www.example.com'],
      throttleRateLimit: 50,
      throttleBurstLimit: 75,
      remoteEvalConcurrency: 0,
      sdkPayloadConcurrency: 200,
      memoryMb: 512,
      timeoutSeconds: 20,
      logRetentionDays: 90,
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
    });
  });

  it('parses the edge options: public route throttles, WAF limits, count-only rules, the origin domain', () => {
    const config = configWith({
      publicThrottleRateLimit: '300',
      publicThrottleBurstLimit: '600',
      waf: 'false',
      webAclArn: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/shared/0a1b2c3d',
      wafKeyRequestsPerMinute: '120',
      wafPublicIpRequestsPerMinute: '10',
      wafCountOnlyRules: 'SizeRestrictions_BODY, CrossSiteScripting_BODY',
      disableExecuteApiEndpoint: 'true',
      requireCloudFront: '1',
      originDomainName: 'origin.flags.example.com',
      originCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
    });

    expect(config).toMatchObject({
      publicThrottleRateLimit: 300,
      publicThrottleBurstLimit: 600,
      waf: false,
      webAclArn: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/shared/0a1b2c3d',
      wafKeyRequestsPerMinute: 120,
      wafPublicIpRequestsPerMinute: 10,
      wafCountOnlyRules: ['SizeRestrictions_BODY', 'CrossSiteScripting_BODY'],
      disableExecuteApiEndpoint: true,
      requireCloudFront: true,
      originDomainName: 'origin.flags.example.com',
      originCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
    });
  });

  it('defaults to the WAF on, the execute-api endpoint open and no origin check, so existing clients keep working', () => {
    expect(configWith({})).toMatchObject({
      waf: true,
      disableExecuteApiEndpoint: false,
      requireCloudFront: false,
      publicThrottleRateLimit: 1000,
      publicThrottleBurstLimit: 2000,
      wafKeyRequestsPerMinute: 600,
      wafPublicIpRequestsPerMinute: 3000,
      wafCountOnlyRules: ['SizeRestrictions_BODY'],
    });
  });

  it('takes lists and booleans as cdk.json writes them', () => {
    const config = configWith({ corsOrigins: ['https://app.example.com'], allowSkipPagination: true });

    expect(config).toMatchObject({ corsOrigins: ['https://app.example.com'], allowSkipPagination: true });
  });

  it.each([
    [{ stage: 'Prod_1' }, /stage/],
    [{ logLevel: 'LOUD' }, /logLevel/],
    [{ allowSkipPagination: 'yes' }, /allowSkipPagination/],
    [{ throttleRateLimit: '-1' }, /throttleRateLimit/],
    [{ remoteEvalConcurrency: '-5' }, /remoteEvalConcurrency must be a whole number/],
    [{ sdkPayloadConcurrency: '2.5' }, /sdkPayloadConcurrency must be a whole number/],
    [{ memoryMb: '64' }, /memoryMb/],
    [{ timeoutSeconds: '30' }, /timeoutSeconds/],
    [{ logRetentionDays: '10' }, /logRetentionDays/],
    [{ serverErrorAlarmPercent: '0' }, /serverErrorAlarmPercent/],
    [{ publicThrottleBurstLimit: 'many' }, /publicThrottleBurstLimit/],
    [{ waf: 'maybe' }, /waf/],
    [{ webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/api/0a1b' }, /webAclArn must be a CloudFront/],
    [{ wafKeyRequestsPerMinute: '5' }, /wafKeyRequestsPerMinute must be between 10/],
    [{ wafPublicIpRequestsPerMinute: '0' }, /wafPublicIpRequestsPerMinute/],
    [{ disableExecuteApiEndpoint: 'true' }, /disableExecuteApiEndpoint needs originDomainName/],
    [{ originDomainName: 'origin.flags.example.com' }, /originDomainName and originCertificateArn go together/],
    [{ requireCloudFront: 'sure' }, /requireCloudFront/],
  ])('fails the synth early on %j', (context, message) => {
    expect(() => configWith(context)).toThrow(message);
  });
});
