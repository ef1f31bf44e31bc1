import { endpoint } from '../../shared/api/endpoint';
import { getArchetype } from '../../shared/contracts/archetypes';
import { archetypes } from '../../shared/store/archetypes';

export const handler = endpoint(getArchetype, async ({ params, auth }) => ({
  archetype: await archetypes.get(auth.orgId, params.id),
}));
