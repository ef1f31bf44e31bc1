import { CfnOutput, Duration, Fn, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Construct } from 'constructs';
import { SDK_PAYLOAD_MAX_AGE_SECONDS } from '../shared/contracts/sdk-payload';
import { cors } from './cors';

/** The public payload route, as CloudFront matches it. */
export const PAYLOAD_PATH_PATTERN = '/api/features/*';

export interface PayloadCdnProps {
  api: HttpApi;
  /** Origin Shield's region (one more cache layer in front of the API), when set. */
  originShieldRegion?: string;
  /** The API's custom domain to reach it by, instead of its `execute-api` host (needed once that is disabled). */
  originDomainName?: string;
  /** Headers CloudFront adds to every request it sends the API (the origin secret). */
  originHeaders?: Record<string, string>;
  /** The ARN of the CloudFront web ACL (us-east-1) that guards the distribution. */
  webAclArn?: string;
}

/**
 * CloudFront in front of the API. The SDK payload route is cached at the edge by its path (the
 * client key) and the encoding the viewer accepts, for as long as the API's Cache-Control says
 * (30 s, then served stale while CloudFront revalidates with the ETag), so an SDK fleet of any size
 * costs the API about one request per edge location per 30 s. Everything else goes to the API uncached,
 * with its Authorization header (CachingDisabled with AllViewerExceptHostHeader forwards it). A web
 * ACL, when given, guards every path; the origin headers tell the API a request came through here.
 */
export class PayloadCdn extends Construct {
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: PayloadCdnProps) {
    super(scope, id);
    const origin = new HttpOrigin(props.originDomainName ?? Fn.select(2, Fn.split('/', props.api.apiEndpoint)), {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      ...(props.originShieldRegion ? { originShieldRegion: props.originShieldRegion } : {}),
      ...(props.originHeaders ? { customHeaders: props.originHeaders } : {}),
    });
    const payloadCache = new CachePolicy(this, 'PayloadCache', {
      comment: 'SDK payload: keyed by path (the client key) and accepted encoding; TTL from the origin Cache-Control',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(SDK_PAYLOAD_MAX_AGE_SECONDS),
      maxTtl: Duration.hours(1),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const payloadHeaders = new ResponseHeadersPolicy(this, 'PayloadHeaders', {
      comment: 'SDK payload: readable by browsers from any origin, with any request header',
      corsBehavior: {
        accessControlAllowOrigins: ['*'],
        accessControlAllowMethods: ['GET', 'HEAD', 'OPTIONS'],
        accessControlAllowHeaders: cors.headers,
        accessControlExposeHeaders: cors.exposeHeaders,
        accessControlAllowCredentials: false,
        accessControlMaxAge: Duration.seconds(cors.maxAgeSeconds),
        originOverride: true,
      },
      securityHeadersBehavior: { frameOptions: { frameOption: HeadersFrameOption.DENY, override: true } },
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Switchyard ${Stack.of(this).stackName}: SDK payload cached at the edge, the rest passed through`,
      priceClass: PriceClass.PRICE_CLASS_100,
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
      additionalBehaviors: {
        [PAYLOAD_PATH_PATTERN]: {
          origin,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
          cachedMethods: CachedMethods.CACHE_GET_HEAD,
          cachePolicy: payloadCache,
          responseHeadersPolicy: payloadHeaders,
          compress: true,
        },
      },
    });
    if (!props.webAclArn) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR2',
        reason: 'The deployer turned the WAF off (context waf=false); the API behind it throttles per route and authorizes every keyed request.',
      });
    }
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'Feature flags are served worldwide, as GrowthBook serves them; no country is excluded.' },
      {
        id: 'AwsSolutions-CFR3',
        reason: 'Every request that reaches the API is in its JSON access log; edge hits of the public payload carry no secret and are not logged.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason: 'The default CloudFront domain and certificate; a custom domain with a TLS 1.2 minimum is the deployer\'s choice.',
      },
    );
    new CfnOutput(Stack.of(this), 'CdnUrl', {
      value: `https://${this.distribution.distributionDomainName}`,
      description: 'CloudFront in front of the API: point SDKs (apiHost) here',
    });
  }
}
