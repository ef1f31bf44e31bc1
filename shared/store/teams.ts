import type { Team } from '../contracts/teams';
import { repository } from './repository';

export const teams = repository<Team>({ type: 'TEAM', label: 'Team' });
