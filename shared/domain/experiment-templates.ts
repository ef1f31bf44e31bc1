import { TEMPLATE_ID_PREFIX, type TemplateFields } from '../contracts/experiment-templates';

/** A template id as bulk import stores it: with the template prefix, added when missing. */
export function normalizeTemplateId(id: string): string {
  return id.startsWith(TEMPLATE_ID_PREFIX) ? id : `${TEMPLATE_ID_PREFIX}${id}`;
}

export interface ImportPlan {
  /** One entry per distinct id, in first-seen order, with the data of all its items merged in order. */
  items: { id: string; data: TemplateFields }[];
  added: number;
  updated: number;
}

/**
 * What a bulk import does. Each item is an upsert by id; an id seen twice is created (or updated)
 * by its first item and updated by the next, so the counts match doing the items one by one.
 */
export function planImport(templates: { id: string; data: TemplateFields }[], existing: Set<string>): ImportPlan {
  const merged = new Map<string, TemplateFields>();
  let added = 0;
  for (const { id, data } of templates) {
    const normalized = normalizeTemplateId(id);
    if (!merged.has(normalized) && !existing.has(normalized)) added++;
    merged.set(normalized, { ...merged.get(normalized), ...data });
  }
  return { items: [...merged].map(([id, data]) => ({ id, data })), added, updated: templates.length - added };
}

/** The saved groups, features and metrics a template's fields name, with the field naming each. */
export function templateReferences(fields: Partial<TemplateFields>, prefix = '') {
  const list = (name: 'goalMetrics' | 'secondaryMetrics' | 'guardrailMetrics') =>
    (fields[name] ?? []).map((id, i) => ({ field: `${prefix}${name}.${i}`, id }));
  return {
    projects: fields.project ? [{ field: `${prefix}project`, id: fields.project }] : [],
    savedGroups: (fields.targeting?.savedGroups ?? []).flatMap((group, i) =>
      group.ids.map((id, j) => ({ field: `${prefix}targeting.savedGroups.${i}.ids.${j}`, id })),
    ),
    features: (fields.targeting?.prerequisites ?? []).map((p, i) => ({ field: `${prefix}targeting.prerequisites.${i}.id`, id: p.id })),
    metrics: [
      ...list('goalMetrics'),
      ...list('secondaryMetrics'),
      ...list('guardrailMetrics'),
      ...(fields.activationMetric ? [{ field: `${prefix}activationMetric`, id: fields.activationMetric }] : []),
    ],
    segments: fields.segment ? [{ field: `${prefix}segment`, id: fields.segment }] : [],
  };
}
