import { AthenaClient, GetQueryResultsCommand, type GetQueryResultsCommandOutput } from '@aws-sdk/client-athena';

let client: AthenaClient | undefined;

/**
 * The Athena client that reads `orgId`'s results: with the organization's own role when the deployment
 * confines each organization (`ATHENA_TENANT_ROLES`, JSON orgId → role ARN), else with the function's role.
 */
export async function athenaClientFor(orgId: string, snapshotId: string): Promise<AthenaClient> {
  const roles = process.env.ATHENA_TENANT_ROLES ? (JSON.parse(process.env.ATHENA_TENANT_ROLES) as Record<string, string>) : undefined;
  if (!roles) return (client ??= new AthenaClient({}));
  const roleArn = Object.hasOwn(roles, orgId) ? roles[orgId] : undefined;
  if (!roleArn) throw new Error(`Organization ${orgId} has no Athena role in this deployment (athenaTenants)`);
  const { STSClient, AssumeRoleCommand } = await import('@aws-sdk/client-sts');
  const { Credentials } = await new STSClient({}).send(
    new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: `snapshot-${snapshotId}`.replace(/[^\w+=,.@-]/g, '_').slice(0, 64) }),
  );
  return new AthenaClient({
    credentials: { accessKeyId: Credentials!.AccessKeyId!, secretAccessKey: Credentials!.SecretAccessKey!, sessionToken: Credentials!.SessionToken, expiration: Credentials!.Expiration },
  });
}

/** Athena column types whose values are numbers (Athena returns every cell as a string). */
const numericTypes = new Set(['tinyint', 'smallint', 'integer', 'int', 'bigint', 'float', 'real', 'double', 'decimal']);

type ResultPage = Pick<GetQueryResultsCommandOutput, 'ResultSet'>;

/**
 * The rows of Athena result pages as objects keyed by column name. Cells of numeric columns become
 * numbers; a missing cell (SQL NULL) becomes null. The first row of the first page is the header
 * Athena repeats from the column names, and is dropped.
 */
export function rowsFromResultPages(pages: ResultPage[]): Record<string, unknown>[] {
  const columns = pages[0]?.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
  const names = columns.map((column) => column.Name ?? column.Label ?? '');
  const numeric = columns.map((column) => numericTypes.has((column.Type ?? '').toLowerCase().replace(/\(.*$/, '')));
  const rows: Record<string, unknown>[] = [];
  pages.forEach((page, pageIndex) => {
    (page.ResultSet?.Rows ?? []).forEach((row, rowIndex) => {
      if (pageIndex === 0 && rowIndex === 0) return;
      const data = row.Data ?? [];
      rows.push(
        Object.fromEntries(
          names.map((name, i) => {
            const value = data[i]?.VarCharValue;
            if (value === undefined) return [name, null];
            return [name, numeric[i] ? Number(value) : value];
          }),
        ),
      );
    });
  });
  return rows;
}

/** Every result row of one Athena query execution, following GetQueryResults' pages (1,000 rows each). */
export async function readAthenaResults(queryExecutionId: string, athena: AthenaClient = (client ??= new AthenaClient({}))): Promise<Record<string, unknown>[]> {
  const pages: ResultPage[] = [];
  let NextToken: string | undefined;
  do {
    const page = await athena.send(new GetQueryResultsCommand({ QueryExecutionId: queryExecutionId, NextToken, MaxResults: 1000 }));
    pages.push(page);
    NextToken = page.NextToken;
  } while (NextToken);
  return rowsFromResultPages(pages);
}
