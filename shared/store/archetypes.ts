import type { Archetype } from '../contracts/archetypes';
import { repository } from './repository';

export const archetypes = repository<Archetype>({ type: 'ARCHETYPE', label: 'Archetype' });
