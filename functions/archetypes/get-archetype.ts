import { endpoint } from '../../shared/api/endpoint';
import { getArchetype } from '../../shared/contracts/archetypes';
import * as archetypes from '../../shared/use-cases/archetypes';

export const handler = endpoint(getArchetype, archetypes.getArchetype);
