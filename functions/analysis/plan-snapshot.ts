import { InvalidInputError } from '../../shared/errors';
import type { SnapshotRunInput } from '../../shared/analysis/aws/start-run';
import type { AthenaTarget, SnapshotPlan } from '../../shared/analysis/aws/workflow';
import { isMetricAnalysisId, METRIC_ANALYSIS_QUERY_ID } from '../../shared/analysis/metric-analysis-outcome';
import type { AthenaParams } from '../../shared/contracts/data-sources';
import { planSnapshot } from '../../shared/analysis/snapshot-run';
import { athenaAllowance, athenaParamsProblems } from '../../shared/domain/athena-tenants';
import { dataSources } from '../../shared/store/data-sources';
import { metricAnalyses } from '../../shared/store/metric-analyses';
import { snapshots } from '../../shared/store/snapshots';

/**
 * First state of the snapshot state machine: the snapshot's SQL (Athena dialect) and where Athena
 * runs it, from the data source its frozen inputs name (an experiment's, or a monitored ramp's).
 * For a metric analysis (a `metan_` id), its one query, built in Athena's dialect when it was asked for.
 */
export async function handler(input: SnapshotRunInput): Promise<SnapshotPlan> {
  if (isMetricAnalysisId(input.snapshotId)) return planMetricAnalysis(input.orgId, input.snapshotId);
  const snapshot = await snapshots.get(input.orgId, input.snapshotId);
  if (!snapshot.inputs) throw new InvalidInputError(`Snapshot ${snapshot.id} has no frozen analysis inputs`);
  const athena = await athenaTarget(input.orgId, snapshot.inputs.datasourceId);
  const { queries } = await planSnapshot(input.orgId, input.snapshotId);
  return { queries, athena };
}

async function planMetricAnalysis(orgId: string, analysisId: string): Promise<SnapshotPlan> {
  const analysis = await metricAnalyses.get(orgId, analysisId);
  // The data source is Athena's (checked here), so the stored SQL was built in Athena's dialect.
  const athena = await athenaTarget(orgId, analysis.datasource);
  return { queries: [{ id: METRIC_ANALYSIS_QUERY_ID, sql: analysis.sql }], athena };
}

/** Where Athena runs the queries of a data source: it must be Athena's, within the organization's allowance. */
async function athenaTarget(orgId: string, dataSourceId: string): Promise<AthenaTarget> {
  const dataSource = await dataSources.get(orgId, dataSourceId);
  if (dataSource.type !== 'athena') {
    throw new InvalidInputError(`Data source ${dataSource.id} is ${dataSource.type}; this deployment runs Athena data sources only`);
  }
  const tenant = confinement(orgId, dataSource.id, dataSource.params);
  const outputLocation = tenant?.outputLocation ?? dataSource.params.outputLocation ?? process.env.ATHENA_OUTPUT_LOCATION;
  if (!outputLocation) throw new InvalidInputError(`Data source ${dataSource.id} has no params.outputLocation and the deployment sets none`);
  return {
    workGroup: dataSource.params.workGroup,
    database: dataSource.params.database,
    catalog: dataSource.params.catalog ?? 'AwsDataCatalog',
    outputLocation,
    ...(tenant ? { roleArn: tenant.roleArn } : {}),
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
