import * as contract from '../contracts/bulk-import';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { factMetricId, factTableIdsOf, planFactsImport } from '../domain/bulk-import';
import { type OwnerFields } from '../domain/owner';
import { InvalidInputError } from '../errors';
import { assertCan } from '../permissions';
import { factMetrics } from '../store/fact-metrics';
import { factTables, readFactsVersioned, transactInChunks } from '../store/fact-tables';
import { resolveOwner } from '../store/members';
import { unknownProjects } from '../store/projects';

/**
 * Upserts fact tables, their filters and fact metrics. Everything is read and validated first;
 * one invalid item fails the whole import with nothing written. The writes are conditional on
 * the versions read, in transactions of at most 100 records (tables before metrics): an import
 * that fits one transaction is atomic; a larger one is written chunk by chunk (see the report
 * of `transactInChunks` when a later chunk fails).
 */
export async function postBulkImportFacts({
  body,
  auth,
}: UseCaseInput<typeof contract.postBulkImportFacts>): UseCaseOutput<typeof contract.postBulkImportFacts> {
  const { orgId } = auth;
  const { tables, metrics, dataSources } = await readFactsVersioned(
    orgId,
    factTableIdsOf(body),
    body.factMetrics.map((item) => factMetricId(item.id)),
    body.factTables.map((item) => item.data.datasource),
  );

  // The caller must be allowed to write every item: as it is stored and as it will be.
  const written = new Set([...body.factTables.map((item) => item.id), ...body.factTableFilters.map((item) => item.factTableId)]);
  // Tables (and their filters) need manageFactTables, metrics manageFactMetrics, as GrowthBook checks them.
  for (const item of body.factTables) assertCan(auth, 'manageFactTables', item.data.projects);
  for (const item of body.factMetrics) assertCan(auth, 'manageFactMetrics', item.data.projects);
  for (const [id, table] of tables) if (written.has(id)) assertCan(auth, 'manageFactTables', table.entity.projects);
  for (const metric of metrics.values()) assertCan(auth, 'manageFactMetrics', metric.entity.projects);

  const owners = new Map<string, OwnerFields>();
  const ownerInputs = new Set([...body.factTables, ...body.factMetrics].flatMap((item) => item.data.owner ?? []));
  await Promise.all(
    [...ownerInputs].map(async (owner) => {
      try {
        owners.set(owner, await resolveOwner(orgId, owner));
      } catch (error) {
        // An unknown owner is reported by the plan, once for every item that names it.
        if (!(error instanceof InvalidInputError)) throw error;
      }
    }),
  );
  // A stored table's datasource never changes (the plan refuses it), so only new tables need theirs to exist.
  body.factTables.forEach((item, i) => {
    if (!tables.has(item.id) && !dataSources.has(item.data.datasource)) {
      throw new InvalidInputError(`Request body: [factTables.${i}.data.datasource] no data source has the id ${item.data.datasource}`);
    }
  });
  const projectIds = [...body.factTables, ...body.factMetrics].flatMap((item) => item.data.projects ?? []);

  const plan = planFactsImport(
    body,
    { tables, metrics },
    { owners, unknownProjects: new Set(await unknownProjects(orgId, projectIds)), defaultOwner: auth.memberId ?? '' },
    new Date().toISOString(),
  );
  await transactInChunks([
    ...plan.tables.map((u) => (u.current ? factTables.prepareUpdate(orgId, u.current, u.next) : factTables.prepareCreate(orgId, u.next))),
    ...plan.metrics.map((u) => (u.current ? factMetrics.prepareUpdate(orgId, u.current, u.next) : factMetrics.prepareCreate(orgId, u.next))),
  ]);
  return { success: true, ...plan.counts };
}
