/**
 * CORS for browsers, the same in AWS (the HTTP API's preflight configuration, CloudFront's response
 * headers policy) and under `npm start` (the local server answers preflights with it). Browser SDKs
 * fetch the payload with whatever headers they like (If-None-Match, a cache-control, their own), so
 * any requested header is allowed; keyed routes are protected by their keys, which a browser never
 * sends by itself, not by CORS.
 */
export const corsPolicy = {
  /** POST for remote evaluation (`/api/eval/{clientKey}`), which browser SDKs with `remoteEval` call. */
  allowMethods: ['GET', 'POST', 'OPTIONS'] as const,
  /** `*`: whatever a preflight asks for. */
  allowHeaders: ['*'],
  exposeHeaders: ['etag'],
  maxAgeSeconds: 86_400,
};
