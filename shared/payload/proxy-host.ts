import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { addressAllowed, allowLocalProxies, bareHost, isLoopback, proxyHostProblem } from './proxy-push';

/**
 * The request of a GrowthBook Proxy push: the proxy host's form is checked again (proxy-push.ts),
 * then every address its name resolves to, and the push connects to the very address checked, so
 * a DNS answer that changes between the check and the connection (rebinding) cannot swap it.
 * Redirects are not followed.
 */

/** A refused push destination: the push is not tried again, since it would be refused again. */
export class BlockedProxyError extends Error {
  readonly name = 'BlockedProxyError';
}

export interface ProxyPostOptions {
  timeoutMs: number;
  allowLocal?: boolean;
  /** Resolves a host name to all its addresses (tests inject one); `dns.lookup` by default. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

/** The address a push to `url` connects to, once every address its host resolves to is allowed. */
async function checkedAddress(url: URL, allowLocal: boolean, resolve: NonNullable<ProxyPostOptions['resolve']>) {
  const problem = proxyHostProblem(url.href, allowLocal);
  if (problem) throw new BlockedProxyError(`The proxy host ${problem}`);
  const name = bareHost(url);
  const addresses = ipaddr.isValid(name) ? [{ address: name, family: name.includes(':') ? 6 : 4 }] : await resolve(name);
  if (addresses.length === 0) throw new BlockedProxyError('The proxy host resolves to no address');
  // One blocked address is enough to refuse: another resolution could hand the connection that one.
  const blocked = addresses.find((entry) => !addressAllowed(entry.address, allowLocal));
  if (blocked) throw new BlockedProxyError(`The proxy host resolves to a blocked address (${blocked.address})`);
  if (url.protocol === 'http:' && !addresses.every((entry) => isLoopback(entry.address))) {
    throw new BlockedProxyError('Plain http goes only to loopback, under PROXY_PUSH_ALLOW_LOCAL');
  }
  return addresses[0];
}

/**
 * POSTs `body` to a proxy URL once the address checks pass, connecting to the checked address and
 * never following a redirect; resolves to the response's status (a 3xx is a failure like any non-2xx).
 */
export async function postToProxy(target: string, init: { headers: Record<string, string>; body: string }, options: ProxyPostOptions): Promise<number> {
  const url = new URL(target);
  const { address, family } = await checkedAddress(url, options.allowLocal ?? allowLocalProxies(), options.resolve ?? ((host) => dnsLookup(host, { all: true })));
  // Node asks for one address, or for all of them when it races IPv4 and IPv6: either way, the checked one.
  const lookup = ((_host: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) =>
    lookupOptions.all ? callback(null, [{ address, family }]) : callback(null, address, family)) as unknown as LookupFunction;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const request = send(url, { method: 'POST', headers: { ...init.headers, 'Content-Length': String(Buffer.byteLength(init.body)) }, lookup, signal: AbortSignal.timeout(options.timeoutMs) }, (response) => {
      response.on('error', reject);
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.resume();
    });
    request.on('error', reject);
    request.end(init.body);
  });
}
