import { randomBytes } from 'node:crypto';

/** A new server-made id: the kind's prefix (`grp_`, `team_`, ...) and 12 random bytes, URL-safe. */
export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('base64url')}`;
}
