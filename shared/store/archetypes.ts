import type { Archetype } from '../contracts/archetypes';
import { repository } from '../db/repository';

export const archetypes = repository<Archetype>({ type: 'ARCHETYPE', label: 'Archetype' });
