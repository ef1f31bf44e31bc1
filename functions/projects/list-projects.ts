import { endpoint } from '../../shared/api/endpoint';
import { listProjects } from '../../shared/contracts/projects';
import * as projects from '../../shared/use-cases/projects';

export const handler = endpoint(listProjects, projects.listProjects);
