import { AthenaClient, GetQueryResultsCommand, type GetQueryResultsCommandOutput } from '@aws-sdk/client-athena';

let client: AthenaClient | undefined;

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
