import { NestedStack, type Stack } from 'aws-cdk-lib';
import { ofType, resourcesOf, synthesize } from './synth';

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}

/** Every function of the API's nested stacks: its description, environment and its role's Glue statements. */
function apiFunctions(api: Stack) {
  return api.node.children.filter(NestedStack.isNestedStack).flatMap((stack) => {
    const resources = resourcesOf(stack);
    return ofType(resources, 'AWS::Lambda::Function').map(([, fn]) => {
      const role = fn.Properties!.Role['Fn::GetAtt'][0];
      const statements = ofType(resources, 'AWS::IAM::Policy')
        .filter(([, policy]) => (policy.Properties!.Roles as { Ref: string }[]).some((r) => r.Ref === role))
        .flatMap(([, policy]) => policy.Properties!.PolicyDocument.Statement as Statement[]);
      return {
        description: fn.Properties!.Description as string,
        environment: (fn.Properties!.Environment?.Variables ?? {}) as Record<string, unknown>,
        glue: statements.filter((statement) => [statement.Action].flat().some((action) => action.startsWith('glue:'))),
      };
    });
  });
}

/** A Glue ARN as the template writes it, e.g. `arn:${Partition}:glue:${Region}:${AccountId}:database/events`. */
const glueArn = (resource: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':glue:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${resource}`]] });

const LISTING = 'GET /api/v1/data-sources/{dataSourceId}/information-schema';
const TABLE = 'GET /api/v1/information-schema-tables/{tableId}';

describe("the Glue Data Catalog grants of the information schema's functions", () => {
  const named = apiFunctions(synthesize({ athenaDatabases: 'events,orders' }).api);

  it("let the listing read the tables (GetTables) and the table route one table (GetTable), of the deployment's databases only", () => {
    const resources = ['catalog', 'database/events', 'database/orders', 'table/events/*', 'table/orders/*'].map(glueArn);

    expect(named.find((fn) => fn.description === LISTING)!.glue).toEqual([{ Effect: 'Allow', Action: 'glue:GetTables', Resource: resources }]);
    expect(named.find((fn) => fn.description === TABLE)!.glue).toEqual([{ Effect: 'Allow', Action: 'glue:GetTable', Resource: resources }]);
  });

  it('are held by those two functions alone, which are told the databases to list', () => {
    expect(named.filter((fn) => fn.glue.length > 0).map((fn) => fn.description).sort()).toEqual([TABLE, LISTING].sort());
    expect(named.filter((fn) => 'ATHENA_DATABASES' in fn.environment).map((fn) => [fn.description, fn.environment.ATHENA_DATABASES])).toEqual(
      expect.arrayContaining([
        [LISTING, '["events","orders"]'],
        [TABLE, '["events","orders"]'],
      ]),
    );
    expect(named.filter((fn) => 'ATHENA_DATABASES' in fn.environment)).toHaveLength(2);
  });

  it('name every tenant’s databases in a deployment that confines each organization (which then lists its own)', () => {
    const tenants = { org_a: { workGroups: ['wg-a'], databases: ['db_a'], dataLocations: ['s3://lake-a/'] }, org_b: { workGroups: ['wg-b'], databases: ['db_b'], dataLocations: ['s3://lake-b/'] } };
    const confined = apiFunctions(synthesize({ athenaTenants: JSON.stringify(tenants) }).api);
    const listing = confined.find((fn) => fn.description === LISTING)!;

    expect(listing.glue).toEqual([{ Effect: 'Allow', Action: 'glue:GetTables', Resource: ['catalog', 'database/db_a', 'database/db_b', 'table/db_a/*', 'table/db_b/*'].map(glueArn) }]);
    expect(listing.environment.ATHENA_DATABASES).toBeUndefined();
    expect(listing.environment.ATHENA_TENANTS).toBeDefined();
  });

  it('are none at all where the deployment names no database (its data sources can then read nothing)', () => {
    const unnamed = apiFunctions(synthesize().api);

    expect(unnamed.filter((fn) => fn.glue.length > 0)).toEqual([]);
    expect(unnamed.find((fn) => fn.description === LISTING)!.environment.ATHENA_DATABASES).toBe('[]');
  });
});
