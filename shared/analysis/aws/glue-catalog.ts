import type { GlueClient } from '@aws-sdk/client-glue';
import type { GlueTable } from '../../domain/glue-information-schema';

// Athena's default catalog, read from Glue with the function's role (glue:GetDatabases, GetTables, GetTable:
// infra/grants.ts). The SDK is loaded on first use: only the information schema routes' Athena path runs it.

let client: GlueClient | undefined;
async function glue() {
  const sdk = await import('@aws-sdk/client-glue');
  client ??= new sdk.GlueClient({});
  return { client, sdk };
}

/** Every database of the account's Glue catalog, following GetDatabases' pages. */
export async function glueDatabases(): Promise<string[]> {
  const { client, sdk } = await glue();
  const names: string[] = [];
  for await (const page of sdk.paginateGetDatabases({ client }, {})) names.push(...(page.DatabaseList ?? []).flatMap((d) => (d.Name ? [d.Name] : [])));
  return names;
}

/** Every table of `database`, following GetTables' pages. */
export async function glueTables(database: string): Promise<GlueTable[]> {
  const { client, sdk } = await glue();
  const tables: GlueTable[] = [];
  for await (const page of sdk.paginateGetTables({ client }, { DatabaseName: database })) tables.push(...(page.TableList ?? []));
  return tables;
}

/** One table, or undefined when Glue has no such database or table. */
export async function glueTable(database: string, name: string): Promise<GlueTable | undefined> {
  const { client, sdk } = await glue();
  try {
    return (await client.send(new sdk.GetTableCommand({ DatabaseName: database, Name: name }))).Table;
  } catch (error) {
    if ((error as Error).name === 'EntityNotFoundException') return undefined;
    throw error;
  }
}
