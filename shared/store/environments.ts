import type { Environment } from '../contracts/environments';
import { prepareTouch } from '../payload/write';
import { repository } from '../db/repository';

/** Environments are stored with the store's dates, which their API shape leaves out. */
export type StoredEnvironment = Environment & { dateCreated: string; dateUpdated: string };

export const environments = repository<StoredEnvironment>({
  type: 'ENVIRONMENT',
  label: 'Environment',
  // SDK connections serve nothing from a deleted environment, and only its projects' features.
  touch: (orgId, { id }) => [prepareTouch(orgId, id)],
});

/** The API shape of a stored environment: without the store's dates. */
export function publicEnvironment({ dateCreated: _created, dateUpdated: _updated, ...environment }: StoredEnvironment): Environment {
  return environment;
}
