import { endpoint } from '../../shared/api/endpoint';
import { postProject } from '../../shared/contracts/projects';
import * as projects from '../../shared/use-cases/projects';

export const handler = endpoint(postProject, projects.postProject);
