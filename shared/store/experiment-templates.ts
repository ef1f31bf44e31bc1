import type { ExperimentTemplate, TemplateFields } from '../contracts/experiment-templates';
import { dataSourceReference } from '../domain/data-sources';
import { templateReferences } from '../domain/experiment-templates';
import { assertDataSourceReferences } from './data-sources';
import { assertMetrics } from './experiments';
import { features } from './features';
import { ownerForCreate } from './members';
import { projects } from './projects';
import { assertReferences, repository } from '../db/repository';
import { savedGroups } from './saved-groups';
import { segments } from './segments';

export const experimentTemplates = repository<ExperimentTemplate>({ type: 'EXPERIMENT_TEMPLATE', label: 'Experiment template' });

/**
 * Checks every resource a template's fields name (its metrics against `analysis.datasource`, the
 * template's own after the change): 400 naming the first missing one. The data source is read
 * only when the fields name it or its exposure query.
 */
export async function assertTemplateReferences(
  orgId: string,
  fields: Partial<TemplateFields>,
  analysis: Pick<TemplateFields, 'datasource' | 'exposureQueryId'>,
  prefix = '',
): Promise<void> {
  const { datasource } = analysis;
  const references = templateReferences(fields, prefix);
  const named = fields.datasource !== undefined || fields.exposureQueryId !== undefined;
  const reference = named
    ? dataSourceReference(
        { datasource, query: analysis.exposureQueryId },
        { datasource: `${prefix}datasource`, query: `${prefix}exposureQueryId` },
      )
    : undefined;
  await Promise.all([
    assertDataSourceReferences(orgId, reference ? [reference] : []),
    assertReferences(orgId, projects, references.projects),
    assertReferences(orgId, savedGroups, references.savedGroups),
    assertReferences(orgId, features, references.features),
    assertReferences(orgId, segments, references.segments),
    assertMetrics(orgId, references.metrics, datasource),
  ]);
}

/** The owner of a template a caller creates: the member behind a personal access token, else nobody. */
export async function templateOwner(auth: { orgId: string; memberId?: string }): Promise<{ owner: string; ownerEmail?: string }> {
  return ownerForCreate(auth.orgId, undefined, auth.memberId);
}
