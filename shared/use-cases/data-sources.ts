import * as contract from '../contracts/data-sources';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { athenaAllowance } from '../domain/athena-tenants';
import { allowedEngines, checkedDataSource, updatedDataSource, type DataSourceLimits } from '../domain/data-sources';
import { paginated } from '../domain/pagination';
import { ConflictError } from '../errors';
import { newId } from '../ids';
import { usersOfDataSource } from '../store/data-source-users';
import { dataSources } from '../store/data-sources';
import { assertProjectsExist } from '../store/projects';
import { readableBy, readableOr404 } from './read-access';

/** A data source that fact tables, experiments, segments or templates still name is refused: they would point at nothing. */
export async function deleteDataSource({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteDataSource>): UseCaseOutput<typeof contract.deleteDataSource> {
  await dataSources.remove(auth.orgId, params.id, async () => {
    const users = await usersOfDataSource(auth.orgId, params.id);
    if (users.length) {
      throw new ConflictError('invalid_status', `Data source ${params.id} is used by ${users.join(', ')}; delete or change those first`);
    }
  });
  return { deletedId: params.id };
}

/** `GET /data-sources/{id}`: get a data source. */
export async function getDataSource({ params, auth }: UseCaseInput<typeof contract.getDataSource>): UseCaseOutput<typeof contract.getDataSource> {
  const dataSource = await dataSources.get(auth.orgId, params.id);
  return { dataSource: readableOr404(auth, dataSource, dataSource.projectIds, 'Data source', params.id) };
}

/**
 * An organization has a handful of data sources, so the list reads them all and pages in memory,
 * in GrowthBook's order (by id). As in GrowthBook, `projectId` also matches data sources that
 * belong to no project, since those serve every project.
 */
export async function listDataSources({
  query,
  auth,
}: UseCaseInput<typeof contract.listDataSources>): UseCaseOutput<typeof contract.listDataSources> {
  const all = readableBy(auth, await dataSources.all(auth.orgId), (ds) => ds.projectIds)
    .filter((ds) => !query.projectId || ds.projectIds.length === 0 || ds.projectIds.includes(query.projectId))
    .sort((a, b) => (a.id < b.id ? -1 : 1)); // code-point order, as DynamoDB and GrowthBook sort ids
  return paginated('dataSources', { items: all.slice(query.offset, query.offset + query.limit), total: all.length }, query);
}

/** What the deployment lets `orgId`'s data sources use (`ANALYSIS_ENGINES`, `ATHENA_TENANTS`). */
const limitsFor = (orgId: string): DataSourceLimits => ({
  engines: allowedEngines(process.env.ANALYSIS_ENGINES),
  athena: athenaAllowance(orgId, process.env.ATHENA_TENANTS),
});

/** `POST /data-sources`: create a data source. */
export async function postDataSource({ body, auth }: UseCaseInput<typeof contract.postDataSource>): UseCaseOutput<typeof contract.postDataSource> {
  const { id, dateCreated, dateUpdated, ...data } = checkedDataSource(
    body,
    { id: newId('ds_'), dateCreated: '', dateUpdated: '' },
    limitsFor(auth.orgId),
  );
  await assertProjectsExist(auth.orgId, body.projectIds, 'projectIds');
  return { dataSource: await dataSources.create(auth.orgId, { id, ...data }) };
}

/** `POST /data-sources/{id}`: partially update a data source. */
export async function updateDataSource({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateDataSource>): UseCaseOutput<typeof contract.updateDataSource> {
  // The body's references are checked after the read, so an unknown data source is 404 first.
  const dataSource = await dataSources.update(auth.orgId, params.id, async (current) => {
    await assertProjectsExist(auth.orgId, body.projectIds, 'projectIds');
    return updatedDataSource(current, body, limitsFor(auth.orgId));
  });
  return { dataSource };
}
