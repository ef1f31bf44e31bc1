import * as z from 'zod';
import { defineEndpoint } from './spec';
import { factMetricImportBody } from './fact-metrics';
import { factTableCreateBody, factTableFilterCreateBody } from './fact-tables';

const id = z.string().trim().min(1).max(256);
/** How many items one import may carry in all; far above real imports, far below the 2 MB body limit's reach. */
export const MAX_IMPORT_ITEMS = 2000;

const bulkImportBody = z
  .strictObject({
    factTables: z.array(z.strictObject({ id, data: factTableCreateBody })).default([]),
    factTableFilters: z.array(z.strictObject({ factTableId: id, id, data: factTableFilterCreateBody })).default([]),
    factMetrics: z.array(z.strictObject({ id, data: factMetricImportBody })).default([]),
  })
  .refine((body) => body.factTables.length + body.factTableFilters.length + body.factMetrics.length <= MAX_IMPORT_ITEMS, {
    message: `an import holds at most ${MAX_IMPORT_ITEMS} items`,
  });
export type BulkImportFacts = z.infer<typeof bulkImportBody>;

export const postBulkImportFacts = defineEndpoint({
  operationId: 'postBulkImportFacts',
  method: 'POST',
  path: '/bulk-import/facts',
  summary: 'Create or update fact tables, their filters and fact metrics by id',
  tag: 'fact-tables',
  permission: 'manageFactTables',
  projectScoped: true,
  body: bulkImportBody,
  response: z.object({
    success: z.boolean(),
    factTablesAdded: z.number().int(),
    factTablesUpdated: z.number().int(),
    factTableFiltersAdded: z.number().int(),
    factTableFiltersUpdated: z.number().int(),
    factMetricsAdded: z.number().int(),
    factMetricsUpdated: z.number().int(),
  }),
});

export const bulkImportEndpoints = [postBulkImportFacts];
