import { createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { InvalidInputError } from '../errors';
import type { SdkConnection } from '../contracts/sdk-connections';

/**
 * Pushing payload changes to a GrowthBook Proxy, as GrowthBook does: a POST of the connection's
 * payload to `<proxyHost>/proxy/features`, with the client key in `X-GrowthBook-Api-Key` and the
 * hex HMAC-SHA256 of the body under the connection's `proxySigningKey` in `X-GrowthBook-Signature`
 * (what the proxy checks before it takes the payload and streams it to its SDKs).
 */

/*
 * Where a push may go. The push is a server-side request to a URL a client chose, so it must not
 * reach the service's own network: the instance metadata endpoint, loopback, private and
 * link-local ranges. A host's form is checked when it is written (https, no query, fragment or
 * credentials, no blocked address literal) and its addresses when a push resolves them
 * (proxy-host.ts, which sends the push).
 */

/** Whether the local-development setting `PROXY_PUSH_ALLOW_LOCAL=true` lets pushes go to loopback over http. */
export const allowLocalProxies = () => process.env.PROXY_PUSH_ALLOW_LOCAL === 'true';

/** An address a push may connect to: public unicast only, plus loopback under the local setting. */
export function addressAllowed(address: string, allowLocal: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  // ::ffff:127.0.0.1 is 127.0.0.1: judge the IPv4 address it carries.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' || (allowLocal && range === 'loopback');
}

/** Whether an address is a loopback address (127/8, ::1, or 127/8 mapped into IPv6). */
export const isLoopback = (address: string) => ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';

/** A URL's host without the brackets of an IPv6 literal. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why `host` cannot be a proxy host, or undefined when it can. An empty host is no proxy and is
 * fine. GrowthBook takes any string here; this is stricter (see the docs' compatibility page).
 */
export function proxyHostProblem(host: string, allowLocal = allowLocalProxies()): string | undefined {
  const text = host.trim();
  if (text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute https URL, such as https://proxy.example.com';
  }
  if (url.protocol !== 'https:' && !(allowLocal && url.protocol === 'http:')) return `must be an https URL (not ${url.protocol})`;
  // URL drops an empty `?` or `#`: look at the text too.
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(text)) return 'must not have a query or fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  // `localhost.` is `localhost`.
  const name = bareHost(url).replace(/\.$/, '');
  if (ipaddr.isValid(name) && !addressAllowed(name, allowLocal)) return 'must not be a loopback, private, link-local or otherwise reserved address';
  if (!allowLocal && (name === 'localhost' || name.endsWith('.localhost'))) return 'must not be localhost';
  return undefined;
}

/** Refuses a proxy host that cannot be written (400 naming `proxyHost`). */
export function assertProxyHost(host: string | undefined): void {
  const problem = host === undefined ? undefined : proxyHostProblem(host);
  if (problem) throw new InvalidInputError(`Request body: [proxyHost] ${problem}`);
}

/**
 * A payload change of one environment (absent: of every environment, as a references change is);
 * `projects` names the features' projects it touched, absent when it may touch any.
 */
export interface PayloadChange {
  orgId: string;
  environment?: string;
  projects?: string[];
}

/** The connections a proxy push is for: proxy on, with a host and a signing key. */
export function pushesToProxy(connection: Pick<SdkConnection, 'proxyEnabled' | 'proxyHost' | 'proxySigningKey'>): boolean {
  return connection.proxyEnabled && connection.proxyHost.trim() !== '' && connection.proxySigningKey !== '';
}

/**
 * Whether one of `changes` reaches the payload of `connection`: its environment, and a project it
 * serves (a connection without projects serves them all; a change without projects may touch any).
 */
export function isAffected(connection: Pick<SdkConnection, 'environment' | 'projects'>, changes: PayloadChange[]): boolean {
  const served = connection.projects ?? [];
  return changes.some(
    (change) => (change.environment === undefined || change.environment === connection.environment) && (!change.projects || served.length === 0 || change.projects.some((p) => served.includes(p))),
  );
}

/** The changes of one batch merged per organization and environment (a change open to any project wins). */
export function mergeChanges(changes: PayloadChange[]): Map<string, PayloadChange[]> {
  const merged = new Map<string, PayloadChange>();
  for (const change of changes) {
    const key = `${change.orgId}\n${change.environment ?? '*'}`;
    const seen = merged.get(key);
    const projects = !seen ? change.projects : seen.projects && change.projects ? [...new Set([...seen.projects, ...change.projects])] : undefined;
    merged.set(key, { orgId: change.orgId, ...(change.environment !== undefined ? { environment: change.environment } : {}), ...(projects ? { projects } : {}) });
  }
  const byOrg = new Map<string, PayloadChange[]>();
  for (const change of merged.values()) byOrg.set(change.orgId, [...(byOrg.get(change.orgId) ?? []), change]);
  return byOrg;
}

/** The hex HMAC-SHA256 of `body` under `signingKey`: GrowthBook's `X-GrowthBook-Signature`. */
function proxySignature(body: string, signingKey: string): string {
  return createHmac('sha256', signingKey).update(body).digest('hex');
}

/** The request that pushes `body` (the connection's payload, as its public route serves it) to its proxy. */
export function proxyRequest(connection: Pick<SdkConnection, 'key' | 'proxyHost' | 'proxySigningKey'>, body: string) {
  return {
    url: `${connection.proxyHost.trim().replace(/\/+$/, '')}/proxy/features`,
    init: {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-GrowthBook-Signature': proxySignature(body, connection.proxySigningKey),
        'X-GrowthBook-Api-Key': connection.key,
      },
      body,
    },
  };
}
