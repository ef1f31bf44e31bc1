import type { Experiment } from '../contracts/experiments';
import { repository } from './repository';

export const experiments = repository<Experiment>({ type: 'EXPERIMENT', label: 'Experiment' });
