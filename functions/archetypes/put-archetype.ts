import { endpoint } from '../../shared/api/endpoint';
import { putArchetype } from '../../shared/contracts/archetypes';
import * as archetypes from '../../shared/use-cases/archetypes';

export const handler = endpoint(putArchetype, archetypes.putArchetype);
