/**
 * What browsers may call, as API Gateway answers their CORS preflights (the local server answers
 * them the same way): the public routes only, GET of SDK payloads and POST of remote evaluation,
 * with no Authorization header, so nothing that needs a key can be called from a page.
 */
export const cors = {
  methods: ['GET', 'POST'] as const,
  headers: ['content-type'],
  maxAgeSeconds: 86_400,
};

/** The answer to a preflight: CORS headers when the method and headers asked for are allowed, none otherwise (as API Gateway). */
export function preflightHeaders(requestHeaders: Record<string, string | undefined>, origin = '*'): Record<string, string> {
  const method = requestHeaders['access-control-request-method']?.toUpperCase();
  const asked = (requestHeaders['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const allowed = method && (cors.methods as readonly string[]).includes(method) && asked.every((name) => cors.headers.includes(name));
  if (!allowed) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': cors.methods.join(','),
    'access-control-allow-headers': cors.headers.join(','),
    'access-control-max-age': String(cors.maxAgeSeconds),
  };
}
