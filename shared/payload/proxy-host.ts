import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { InvalidInputError } from '../errors';

/**
 * Where a GrowthBook Proxy push may go. The push is a server-side request to a URL a client chose,
 * so it must not reach the service's own network: the instance metadata endpoint, loopback,
 * private and link-local ranges. A host is checked twice: its form when it is written (https, no
 * query, fragment or credentials, no blocked address literal) and its addresses when a push
 * resolves it, and the push connects to the very address checked, so a DNS answer that changes
 * between the check and the connection (rebinding) cannot swap it. Redirects are not followed.
 */

/** Whether the local-development setting `PROXY_PUSH_ALLOW_LOCAL=true` lets pushes go to loopback over http. */
export const allowLocalProxies = () => process.env.PROXY_PUSH_ALLOW_LOCAL === 'true';

/** An address a push may connect to: public unicast only, plus loopback under the local setting. */
function addressAllowed(address: string, allowLocal: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  // ::ffff:127.0.0.1 is 127.0.0.1: judge the IPv4 address it carries.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' || (allowLocal && range === 'loopback');
}

const isLoopback = (address: string) => ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';

/** A URL's host without the brackets of an IPv6 literal. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

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
  const name = bareHost(url);
  if (ipaddr.isValid(name) && !addressAllowed(name, allowLocal)) return 'must not be a loopback, private, link-local or otherwise reserved address';
  if (!allowLocal && (name === 'localhost' || name.endsWith('.localhost'))) return 'must not be localhost';
  return undefined;
}

/** Refuses a proxy host that cannot be written (400 naming `proxyHost`). */
export function assertProxyHost(host: string | undefined): void {
  const problem = host === undefined ? undefined : proxyHostProblem(host);
  if (problem) throw new InvalidInputError(`Request body: [proxyHost] ${problem}`);
}

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
    const request = send(url, { method: 'POST', headers: init.headers, lookup, signal: AbortSignal.timeout(options.timeoutMs) }, (response) => {
      response.on('error', reject);
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.resume();
    });
    request.on('error', reject);
    request.end(init.body);
  });
}
