import type { Environment } from '../contracts/environments';
import { repository } from './repository';

/** Environments are stored with the store's dates, which their API shape leaves out. */
export type StoredEnvironment = Environment & { dateCreated: string; dateUpdated: string };

export const environments = repository<StoredEnvironment>({ type: 'ENVIRONMENT', label: 'Environment' });
