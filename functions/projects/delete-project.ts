import { endpoint } from '../../shared/api/endpoint';
import { deleteProject } from '../../shared/contracts/projects';
import * as projects from '../../shared/use-cases/projects';

export const handler = endpoint(deleteProject, projects.deleteProject);
