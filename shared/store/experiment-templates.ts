import type { ExperimentTemplate, TemplateFields } from '../contracts/experiment-templates';
import { templateReferences } from '../domain/experiment-templates';
import { assertMetrics } from './experiments';
import { features } from './features';
import { ownerForCreate } from './members';
import { projects } from './projects';
import { assertReferences, repository } from './repository';
import { savedGroups } from './saved-groups';
import { segments } from './segments';

export const experimentTemplates = repository<ExperimentTemplate>({ type: 'EXPERIMENT_TEMPLATE', label: 'Experiment template' });

/**
 * Checks every resource a template's fields name (its metrics against `datasource`, the
 * template's own): 400 naming the first missing one.
 */
export async function assertTemplateReferences(
  orgId: string,
  fields: Partial<TemplateFields>,
  datasource: string,
  prefix = '',
): Promise<void> {
  const references = templateReferences(fields, prefix);
  await Promise.all([
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
