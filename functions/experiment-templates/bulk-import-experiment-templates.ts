import { allInOrder } from '../../shared/concurrency';
import { endpoint } from '../../shared/api/endpoint';
import { assertCan } from '../../shared/permissions';
import { bulkImportExperimentTemplates } from '../../shared/contracts/experiment-templates';
import { normalizeTemplateId, planImport } from '../../shared/domain/experiment-templates';
import { assertTemplateReferences, experimentTemplates, templateOwner } from '../../shared/store/experiment-templates';
import { transact } from '../../shared/db/repository';

/** DynamoDB's limit of items in one transaction. */
const TRANSACTION_ITEMS = 100;

export const handler = endpoint(bulkImportExperimentTemplates, async ({ body, auth }) => {
  // Everything is checked before anything is written.
  const ids = [...new Set(body.templates.map((t) => normalizeTemplateId(t.id)))];
  const [, existing] = await allInOrder([
    allInOrder(body.templates.map(({ data }, i) => assertTemplateReferences(auth.orgId, data, data, `templates.${i}.data.`))),
    experimentTemplates.readMany(auth.orgId, ids),
  ]);
  const current = new Map(existing.map((found) => [found.entity.id, found]));
  const plan = planImport(body.templates, new Set(current.keys()));
  const owner = await templateOwner(auth);
  const ops = plan.items.map(({ id, data }) => {
    const existing = current.get(id);
    assertCan(auth, bulkImportExperimentTemplates.permission, [existing?.entity.project, data.project].flatMap((p) => (p ? [p] : [])));
    return existing
      ? experimentTemplates.prepareUpdate(auth.orgId, existing, { ...existing.entity, ...data })
      : experimentTemplates.prepareCreate(auth.orgId, { ...data, id, ...owner });
  });
  for (let start = 0; start < ops.length; start += TRANSACTION_ITEMS) await transact(ops.slice(start, start + TRANSACTION_ITEMS));
  return { added: plan.added, updated: plan.updated };
});
