import { endpoint } from '../../shared/api/endpoint';
import { deleteArchetype } from '../../shared/contracts/archetypes';
import * as archetypes from '../../shared/use-cases/archetypes';

export const handler = endpoint(deleteArchetype, archetypes.deleteArchetype);
