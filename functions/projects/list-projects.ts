import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listProjects } from '../../shared/contracts/projects';
import { projects } from '../../shared/store/projects';

export const handler = endpoint(listProjects, async ({ query, auth }) =>
  paginated('projects', await projects.list(auth.orgId, query), query),
);
