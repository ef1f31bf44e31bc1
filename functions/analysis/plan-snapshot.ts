import { InvalidInputError } from '../../shared/errors';
import type { SnapshotRunInput } from '../../shared/analysis/aws/start-run';
import type { SnapshotPlan } from '../../shared/analysis/aws/workflow';
import type { AthenaParams } from '../../shared/contracts/data-sources';
import { planSnapshot } from '../../shared/analysis/snapshot-run';
import { athenaAllowance, athenaParamsProblems } from '../../shared/domain/athena-tenants';
import { dataSources } from '../../shared/store/data-sources';
import { snapshots } from '../../shared/store/snapshots';

/**
 * First state of the snapshot state machine: the snapshot's SQL (Athena dialect) and where Athena
 * runs it, from the data source its frozen inputs name (an experiment's, or a monitored ramp's).
 */
export async function handler(input: SnapshotRunInput): Promise<SnapshotPlan> {
  const snapshot = await snapshots.get(input.orgId, input.snapshotId);
  if (!snapshot.inputs) throw new InvalidInputError(`Snapshot ${snapshot.id} has no frozen analysis inputs`);
  const dataSource = await dataSources.get(input.orgId, snapshot.inputs.datasourceId);
  if (dataSource.type !== 'athena') {
    throw new InvalidInputError(`Data source ${dataSource.id} is ${dataSource.type}; this deployment runs Athena data sources only`);
  }
  const tenant = confinement(input.orgId, dataSource.id, dataSource.params);
  const outputLocation = tenant?.outputLocation ?? dataSource.params.outputLocation ?? process.env.ATHENA_OUTPUT_LOCATION;
  if (!outputLocation) throw new InvalidInputError(`Data source ${dataSource.id} has no params.outputLocation and the deployment sets none`);
  const { queries } = await planSnapshot(input.orgId, input.snapshotId);
  return {
    queries,
    athena: {
      workGroup: dataSource.params.workGroup,
      database: dataSource.params.database,
      catalog: dataSource.params.catalog ?? 'AwsDataCatalog',
      outputLocation,
      ...(tenant ? { roleArn: tenant.roleArn } : {}),
    },
  };
}

/**
 * Multi-tenant (`ATHENA_TENANT_ROLES`): the organization's role and its own prefix of the output
 * location, after checking again that the data source stays within the organization's allowance
 * (it may predate the allowance). Single-tenant: nothing.
 */
function confinement(orgId: string, dataSourceId: string, params: AthenaParams): { roleArn: string; outputLocation: string } | undefined {
  if (!process.env.ATHENA_TENANT_ROLES) return undefined;
  const roles = JSON.parse(process.env.ATHENA_TENANT_ROLES) as Record<string, string>;
  const roleArn = Object.hasOwn(roles, orgId) ? roles[orgId] : undefined;
  if (!roleArn) throw new InvalidInputError(`Organization ${orgId} may not use Athena in this deployment (athenaTenants does not list it)`);
  const allowance = athenaAllowance(orgId, process.env.ATHENA_TENANTS);
  if (allowance !== 'unconfined') {
    // The output location is the deployment's here, so only the data it reads is checked.
    const problems = athenaParamsProblems({ ...params, outputLocation: undefined }, allowance);
    if (problems.length) throw new InvalidInputError(`Data source ${dataSourceId}: ${problems.map(({ field, problem }) => `params.${field} ${problem}`).join('; ')}`);
  }
  return { roleArn, outputLocation: `${process.env.ATHENA_OUTPUT_LOCATION}${orgId}/` };
}
