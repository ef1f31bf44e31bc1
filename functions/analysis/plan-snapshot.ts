import { InvalidInputError } from '../../shared/errors';
import type { SnapshotRunInput } from '../../shared/analysis/aws/start-run';
import type { SnapshotPlan } from '../../shared/analysis/aws/workflow';
import { planSnapshot } from '../../shared/analysis/snapshot-run';
import { dataSources } from '../../shared/store/data-sources';
import { experiments } from '../../shared/store/experiments';
import { snapshots } from '../../shared/store/snapshots';

/**
 * First state of the snapshot state machine: the snapshot's SQL (Athena dialect) and where Athena
 * runs it, from the experiment's data source. An experiment's data source never changes once set.
 */
export async function handler(input: SnapshotRunInput): Promise<SnapshotPlan> {
  const snapshot = await snapshots.get(input.orgId, input.snapshotId);
  const experiment = await experiments.get(input.orgId, snapshot.experiment);
  const dataSource = await dataSources.get(input.orgId, experiment.settings.datasourceId);
  if (dataSource.type !== 'athena') {
    throw new InvalidInputError(`Data source ${dataSource.id} is ${dataSource.type}; this deployment runs Athena data sources only`);
  }
  const outputLocation = dataSource.params.outputLocation ?? process.env.ATHENA_OUTPUT_LOCATION;
  if (!outputLocation) throw new InvalidInputError(`Data source ${dataSource.id} has no params.outputLocation and the deployment sets none`);
  const { queries } = await planSnapshot(input.orgId, input.snapshotId);
  return {
    queries,
    athena: {
      workGroup: dataSource.params.workGroup,
      database: dataSource.params.database,
      catalog: dataSource.params.catalog ?? 'AwsDataCatalog',
      outputLocation,
    },
  };
}
