import { createHmac } from 'node:crypto';
import type { SdkConnection } from '../contracts/sdk-connections';

/**
 * Pushing payload changes to a GrowthBook Proxy, as GrowthBook does: a POST of the connection's
 * payload to `<proxyHost>/proxy/features`, with the client key in `X-GrowthBook-Api-Key` and the
 * hex HMAC-SHA256 of the body under the connection's `proxySigningKey` in `X-GrowthBook-Signature`
 * (what the proxy checks before it takes the payload and streams it to its SDKs).
 */

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
