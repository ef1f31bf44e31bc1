import { endpoint } from '../../shared/api/endpoint';
import { getProject } from '../../shared/contracts/projects';
import * as projects from '../../shared/use-cases/projects';

export const handler = endpoint(getProject, projects.getProject);
