import { endpoint } from '../../shared/api/endpoint';
import { postArchetype } from '../../shared/contracts/archetypes';
import * as archetypes from '../../shared/use-cases/archetypes';

export const handler = endpoint(postArchetype, archetypes.postArchetype);
