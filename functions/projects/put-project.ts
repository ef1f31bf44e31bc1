import { endpoint } from '../../shared/api/endpoint';
import { putProject } from '../../shared/contracts/projects';
import * as projects from '../../shared/use-cases/projects';

export const handler = endpoint(putProject, projects.putProject);
