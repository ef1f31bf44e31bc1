import { endpoint } from '../../shared/api/endpoint';
import { listArchetypes } from '../../shared/contracts/archetypes';
import * as archetypes from '../../shared/use-cases/archetypes';

export const handler = endpoint(listArchetypes, archetypes.listArchetypes);
