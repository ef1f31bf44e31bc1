import { experimentTemplates } from './experiment-templates';
import { experiments } from './experiments';
import { factTables } from './fact-tables';
import { segments } from './segments';

/**
 * Ids of some fact tables, experiments, segments and experiment templates that use the data
 * source; empty when nothing does. Used to refuse deleting what is still in use. The first three
 * carry a `datasource:<id>` tag on their list index (keys-only, filtered, never a Scan);
 * templates are a small unpaginated list read whole. Fact metrics are not asked: a metric's
 * datasource is its fact table's, so the table already names the use.
 */
export async function usersOfDataSource(orgId: string, dataSourceId: string): Promise<string[]> {
  const page = { limit: 5, offset: 0, tags: [`datasource:${dataSourceId}`] };
  const [tables, experimentPage, segmentPage, templates] = await Promise.all([
    factTables.list(orgId, page),
    experiments.list(orgId, page),
    segments.list(orgId, page),
    experimentTemplates.all(orgId),
  ]);
  return [
    ...tables.items,
    ...experimentPage.items,
    ...segmentPage.items,
    ...templates.filter((template) => template.datasource === dataSourceId).slice(0, 5),
  ].map((item) => item.id);
}
