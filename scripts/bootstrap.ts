import { ConflictError } from '../shared/errors';
import { createApiKey } from '../shared/store/api-keys';
import { createOrganization, findOrganization } from '../shared/store/organizations';

const ADMIN_SECRET = /^secret_admin_[A-Za-z0-9_-]{16,}$/;

/**
 * Makes sure an organization exists and has an admin key. With `secret`, that exact key is
 * stored (hashed) if it is not already; without, a new key is made and returned once.
 */
export async function ensureOrganizationWithAdminKey(options: { orgId: string; name: string; secret?: string }) {
  if (!(await findOrganization(options.orgId))) {
    try {
      await createOrganization(options.name, options.orgId);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error; // created by a concurrent start
    }
  }
  if (options.secret !== undefined && !ADMIN_SECRET.test(options.secret)) {
    throw new Error('SWITCHYARD_API_KEY must look like secret_admin_<at least 16 URL-safe characters>');
  }
  try {
    const { secret } = await createApiKey({
      orgId: options.orgId,
      role: 'admin',
      description: options.secret ? 'SWITCHYARD_API_KEY' : 'Created by npm start',
      secret: options.secret,
    });
    return { orgId: options.orgId, secret, reused: Boolean(options.secret) };
  } catch (error) {
    if (error instanceof ConflictError && options.secret) return { orgId: options.orgId, secret: options.secret, reused: true };
    throw error;
  }
}
