import type { SavedGroup } from '../contracts/saved-groups';
import { repository } from './repository';

export const savedGroups = repository<SavedGroup>({ type: 'SAVED_GROUP', label: 'Saved group' });
