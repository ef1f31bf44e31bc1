import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from './errors';

/** The header CloudFront adds to each request it sends the API (infra/payload-cdn.ts). */
export const ORIGIN_VERIFY_HEADER = 'x-switchyard-origin-verify';
/** The variable holding the header's expected value; unset (locally, or without `requireCloudFront`), nothing is checked. */
export const ORIGIN_VERIFY_ENV = 'ORIGIN_VERIFY_SECRET';

/** 403 for a request that did not come through CloudFront, whose WAF it would otherwise skip. */
export class NotThroughCloudFrontError extends ApiError {
  constructor() {
    super(403, 'forbidden', 'Call the API through its CloudFront URL (the CdnUrl output), not its own host');
  }
}

const sameSecret = (given: string, expected: string) => {
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * Refuses requests without CloudFront's origin secret when `ORIGIN_VERIFY_SECRET` is set. HTTP APIs
 * have no resource policy, and a Lambda authorizer would put a second function on every route; this
 * is one string comparison, before the body is parsed or the key looked up.
 */
export function fromCloudFront(): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: ({ event }) => {
      const expected = process.env[ORIGIN_VERIFY_ENV];
      if (!expected) return;
      if (!sameSecret(event.headers?.[ORIGIN_VERIFY_HEADER] ?? '', expected)) throw new NotThroughCloudFrontError();
    },
  };
}
