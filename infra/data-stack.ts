import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { tableSchema } from '../shared/db/table-schema';
import type { SwitchyardConfig } from './config';

export interface DataStackProps extends StackProps {
  config: SwitchyardConfig;
}

/** The single table, shaped by shared/db/table-schema.ts. It outlives every other stack. */
export class DataStack extends Stack {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    this.table = new Table(this, 'Table', {
      tableName: props.config.tableName,
      partitionKey: { name: tableSchema.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableSchema.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      timeToLiveAttribute: tableSchema.ttlAttribute,
      // New event items go to EventBridge, and payload changes to GrowthBook Proxy, from here (events stack).
      stream: StreamViewType[tableSchema.streamViewType],
    });
    const indexes: readonly { indexName: string; partitionKey: string; sortKey: string; nonKeyAttributes?: readonly string[] }[] =
      tableSchema.indexes;
    for (const index of indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        ...(index.nonKeyAttributes?.length
          ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.nonKeyAttributes] }
          : { projectionType: ProjectionType.KEYS_ONLY }),
      });
    }
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'TABLE_NAME for the admin CLI' });
  }
}
