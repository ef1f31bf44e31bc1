import type { CustomField } from '../contracts/custom-fields';
import { projects } from './projects';
import { assertReferences, repository } from '../db/repository';

/** Custom fields, keyed by the id (key) their creator chose. */
export const customFields = repository<CustomField>({ type: 'CUSTOM_FIELD', label: 'Custom field' });

/** Raises 400 naming the field unless every project a custom field is limited to exists. */
export async function assertCustomFieldProjects(orgId: string, ids: string[] = []): Promise<void> {
  await assertReferences(orgId, projects, ids.map((id, i) => ({ field: `projects.${i}`, id })));
}
