import type { Project } from '../contracts/projects';
import { repository } from './repository';

export const projects = repository<Project>({ type: 'PROJECT', label: 'Project' });
