/**
 * What browsers may call, as API Gateway answers their CORS preflights (the local server answers
 * them the same way, and CloudFront's payload route with the same policy): GET of SDK payloads and
 * POST of remote evaluation, with any header they ask for (SDKs send If-None-Match, cache-control
 * or their own). Keyed routes are protected by their keys, which a browser never sends on its
 * own, not by CORS.
 */
export const cors = {
  methods: ['GET', 'POST', 'OPTIONS'] as const,
  /** `*`: whatever a preflight asks for. */
  headers: ['*'],
  exposeHeaders: ['etag'],
  maxAgeSeconds: 86_400,
};

/** The answer to a preflight: CORS headers when the method and headers asked for are allowed, none otherwise (as API Gateway). */
export function preflightHeaders(requestHeaders: Record<string, string | undefined>, origin = '*'): Record<string, string> {
  const method = requestHeaders['access-control-request-method']?.toUpperCase();
  const asked = (requestHeaders['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const anyHeader = cors.headers.includes('*');
  const allowed = method && (cors.methods as readonly string[]).includes(method) && (anyHeader || asked.every((name) => cors.headers.includes(name)));
  if (!allowed) return {};
  const allowHeaders = anyHeader ? asked.join(',') : cors.headers.join(',');
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': cors.methods.join(','),
    ...(allowHeaders ? { 'access-control-allow-headers': allowHeaders } : {}),
    'access-control-max-age': String(cors.maxAgeSeconds),
  };
}
