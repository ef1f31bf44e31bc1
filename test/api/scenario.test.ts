import * as z from 'zod/mini';
import { call, settle } from '../../bench/dynamo-cost';
import { SCENARIO_ASSIGNMENT_SQL, scenario, scenarioDataSourceId, type Ids } from '../../bench/scenarios';
import { dataSources } from '../../shared/store/data-sources';
import { routes } from '../../shared/contracts/registry';
import { watchCommands } from '../../shared/db/client';
import { createTestOrg, type TestOrg } from '../support/api';

/**
 * The bench measures the scenario's requests in process, through the same `invoke` as here: this
 * proves each of them is a real, successful request with the documented answer, not a cheap error.
 */
const specOf = new Map(routes.map((route) => [route.spec.operationId, route.spec]));

let org: TestOrg;

beforeAll(async () => {
  org = await createTestOrg('Scenario', { dataSources: [scenarioDataSourceId] });
  // The scenario's snapshot runs for real on DuckDB: its assignment query reads inline rows.
  await dataSources.update(org.orgId, scenarioDataSourceId, (ds) => ({
    ...ds,
    assignmentQueries: ds.assignmentQueries.map((q) => (q.id === 'user_id' ? { ...q, sql: SCENARIO_ASSIGNMENT_SQL } : q)),
  }));
});

describe('the bench scenario', () => {
  it('answers every step, in order, with a success in the documented shape', async () => {
    const ids: Ids = { memberId: org.admin.memberId, email: org.admin.email, memberToken: org.admin.token };
    const failures: { operationId: string; status: number; problem: unknown }[] = [];
    // Every handler runs held to its IAM grant (infra/local/iam.ts): no call may be refused, even one whose refusal a handler absorbs.
    const refused: string[] = [];
    const stop = watchCommands((command) => (error) => {
      if ((error as Error | undefined)?.name === 'AccessDeniedException') refused.push(`${command}: ${(error as Error).message}`);
    });

    for (const step of scenario) {
      await settle(org.keys.admin, step, ids);
      const response = await call(step.key?.(ids) ?? org.keys.admin, step.method, step.path(ids), step.body?.(ids));
      if (response.status < 200 || response.status >= 300) {
        failures.push({ operationId: step.operationId, status: response.status, problem: response.body });
        continue;
      }
      const spec = specOf.get(step.operationId);
      const parsed = spec && z.safeParse(spec.response, response.body);
      if (!parsed?.success) failures.push({ operationId: step.operationId, status: response.status, problem: parsed?.error.issues ?? 'not in the registry' });
      step.capture?.(response.body, ids);
    }
    stop();

    expect(failures).toEqual([]);
    expect(refused).toEqual([]);
  }, 60_000);
});
