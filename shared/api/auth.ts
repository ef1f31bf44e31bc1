import { UnauthorizedError } from './errors';
import { type Principal } from '../permissions';
import { findApiKey, hashSecret, type ApiKeyRecord } from '../store/api-keys';
import { principalOfKey } from '../store/principals';

// The role in a secret may be camel case (`secret_visualEditor_...`) or hold an underscore (`secret_gbDefault_projectAdmin_...`).
const SECRET_PATTERN = /^secret_[A-Za-z]+_[A-Za-z0-9_-]{16,}$/;

/** How long a warm container trusts a resolved key; a revoked key stops working within this time. */
export const authCacheTtlMs = () => Number(process.env.AUTH_CACHE_TTL_SECONDS ?? 30) * 1000;

/**
 * How long a warm container remembers that a key is unknown, so a flood of made-up keys costs one
 * GetItem per key and container, not one per request; a key created just after a request tried it
 * works in that container within this time.
 */
export const authMissCacheTtlMs = () => Number(process.env.AUTH_MISS_CACHE_TTL_SECONDS ?? 5) * 1000;

const CACHE_ENTRIES = 1000;
const cache = new Map<string, { principal: Principal; expires: number }>();
// Misses have their own map and bound, so made-up keys never push a real key's principal out.
const MISS_ENTRIES = 10_000;
const misses = new Map<string, number>();

/** Adds an entry to a bounded map, dropping the oldest one when it is full. */
function remember<T>(map: Map<string, T>, limit: number, key: string, value: T): void {
  map.delete(key);
  if (map.size >= limit) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** Forgets every cached key, known or unknown (tests). */
export function clearAuthCache(): void {
  cache.clear();
  misses.clear();
}

/** The secret in an `Authorization` header: `Bearer <key>` or Basic with the key as user name. */
export function secretFromHeader(header: string | undefined): string {
  if (!header) throw new UnauthorizedError('Missing API key: send Authorization: Bearer <key>');
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  let secret: string;
  if (scheme.toLowerCase() === 'bearer') {
    secret = value;
  } else if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    secret = decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : decoded;
  } else {
    throw new UnauthorizedError('Unsupported Authorization scheme: use Bearer or Basic');
  }
  if (!SECRET_PATTERN.test(secret)) throw new UnauthorizedError('Malformed API key');
  return secret;
}

/** The caller a stored key stands for; 401 when a personal access token's member is gone. */
async function principalOf(key: ApiKeyRecord): Promise<Principal> {
  const principal = await principalOfKey(key);
  if (!principal) throw new UnauthorizedError('The member of this access token no longer exists');
  return principal;
}

/**
 * The caller behind an `Authorization` header: one GetItem by the key's hash (plus the member
 * and teams for a personal access token), cached per warm container for a short TTL.
 */
export async function authenticate(header: string | undefined): Promise<Principal> {
  const hash = hashSecret(secretFromHeader(header));
  const cached = cache.get(hash);
  if (cached && cached.expires > Date.now()) return cached.principal;
  if ((misses.get(hash) ?? 0) > Date.now()) throw new UnauthorizedError('Unknown or revoked API key');
  const key = await findApiKey(hash);
  if (!key) {
    cache.delete(hash);
    remember(misses, MISS_ENTRIES, hash, Date.now() + authMissCacheTtlMs());
    throw new UnauthorizedError('Unknown or revoked API key');
  }
  misses.delete(hash);
  const principal = await principalOf(key);
  remember(cache, CACHE_ENTRIES, hash, { principal, expires: Date.now() + authCacheTtlMs() });
  return principal;
}
