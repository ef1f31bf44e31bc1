import { ensureTable, startDynamoLocal, type LocalDynamo } from '../infra/local/dynamodb';

/** A DynamoDB Local with the table, for one benchmark run. */
export async function benchDynamo(): Promise<LocalDynamo> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.TABLE_NAME = 'switchyard-bench';
  process.env.LOG_LEVEL ??= 'CRITICAL';
  const dynamo = await startDynamoLocal();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
  return dynamo;
}

/**
 * A fresh organization with an admin key, an admin member with a personal access token, and the
 * data source the bench scenario's resources name.
 */
export async function benchOrganization() {
  const { createOrganization } = await import('../shared/store/organizations');
  const { createApiKey } = await import('../shared/store/api-keys');
  const { addMember } = await import('../shared/store/members');
  const org = await createOrganization('Bench');
  const { secret } = await createApiKey({ orgId: org.id, role: 'admin', description: 'bench' });
  const { dataSources } = await import('../shared/store/data-sources');
  const { SCENARIO_ASSIGNMENT_SQL, scenarioDataSourceId } = await import('./scenarios');
  await dataSources.create(org.id, {
    id: scenarioDataSourceId,
    type: 'duckdb',
    params: {},
    name: 'Bench data source',
    description: '',
    projectIds: [],
    eventTracker: '',
    identifierTypes: [{ id: 'user_id', description: '' }],
    assignmentQueries: [
      { id: 'user_id', name: 'Users', description: '', identifierType: 'user_id', sql: SCENARIO_ASSIGNMENT_SQL, includesNameColumns: false, dimensionColumns: [] },
    ],
    identifierJoinQueries: [],
  });
  const member = await addMember(org.id, { name: 'Bench', email: `bench-${org.id}@example.com`, role: 'admin', projectRoles: [] });
  // Reviews come from people: the scenario's review steps send the member's personal access token.
  const token = await createApiKey({ orgId: org.id, role: 'user', memberId: member.id, description: 'bench member' });
  return { orgId: org.id, key: secret, memberId: member.id, email: `bench-${org.id}@example.com`, memberToken: token.secret };
}
