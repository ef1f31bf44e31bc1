import { endpoint } from '../../shared/api/endpoint';
import { listArchetypes } from '../../shared/contracts/archetypes';
import { archetypes } from '../../shared/store/archetypes';

export const handler = endpoint(listArchetypes, async ({ auth }) => ({ archetypes: await archetypes.all(auth.orgId) }));
