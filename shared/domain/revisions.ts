import { InvalidInputError } from '../errors';
import type { FeatureRule } from '../contracts/features';
import type { RevisionStatus } from '../contracts/feature-revisions';
import { canonicalJson, defaultSettings, type FeatureContent } from './features';
import type { ChangeScope, RevisionReview } from './revision-reviews';

/**
 * The revision engine's pure part: what a revision holds, how a draft merges against the live version
 * (GrowthBook's three-way merge), which status allows which action, and how reviewers' verdicts go stale.
 * Features use it first; the fields are the only feature-specific part, so saved groups, configs and
 * constants can bring their own fields and reuse the rest.
 */

export type { RevisionStatus };

/** The statuses of a draft still open: it can be edited, rebased, published or discarded. */
export const openStatuses: RevisionStatus[] = ['draft', 'pending-review', 'approved', 'changes-requested'];

export type { ReviewVerdict, RevisionReview } from './revision-reviews';
export { afterEdit, staleReviews } from './revision-reviews';

/** What every stored revision carries, whatever its resource (features, saved groups). */
export interface RevisionRecord {
  version: number;
  status: RevisionStatus;
  date: string;
  dateUpdated?: string;
  createdBy?: string;
  reviews?: RevisionReview[];
  /** Who edited the draft besides its author (member or key ids), for `mine`. */
  contributors?: string[];
  /** Edits so far: each draft write is conditional on it, so concurrent edits never lose one another. */
  changeCount?: number;
}

/** The metadata a feature revision carries, compared field by field. */
export interface RevisionMetadata {
  description: string;
  owner: string;
  project: string;
  tags: string[];
}

/** Everything of a feature a revision holds and a publish replaces. */
export interface RevisionFields {
  defaultValue: string;
  /** Rules per environment. */
  rules: Record<string, FeatureRule[]>;
  environmentsEnabled: Record<string, boolean>;
  /** Feature-level prerequisites (ids of boolean flags that must be on). */
  prerequisites: string[];
  archived: boolean;
  metadata: RevisionMetadata;
  /** The feature's holdout; `null` in a draft that removes it, absent where a revision predates it. */
  holdout?: RevisionHoldout | null;
}

/** A feature's holdout: the holdout and the value users held out get. */
export interface RevisionHoldout {
  id: string;
  value: string;
}

/** The revision fields of a feature as it is. */
export function fieldsOf(feature: FeatureContent): RevisionFields {
  const environments = Object.entries(feature.environments);
  return {
    defaultValue: feature.defaultValue,
    rules: Object.fromEntries(environments.map(([env, settings]) => [env, settings.rules])),
    environmentsEnabled: Object.fromEntries(environments.map(([env, settings]) => [env, settings.enabled])),
    prerequisites: feature.prerequisites,
    archived: feature.archived,
    metadata: { description: feature.description, owner: feature.owner, project: feature.project, tags: feature.tags },
    ...(feature.holdout ? { holdout: feature.holdout } : {}),
  };
}

/** The feature with a revision's fields in place of its own (fields a revision does not hold stay). */
export function withFields<F extends FeatureContent>(feature: F, fields: RevisionFields): F {
  const envs = new Set([...Object.keys(feature.environments), ...Object.keys(fields.rules), ...Object.keys(fields.environmentsEnabled)]);
  const environments = Object.fromEntries(
    [...envs].map((env) => {
      const current = feature.environments[env] ?? defaultSettings();
      return [env, { enabled: fields.environmentsEnabled[env] ?? current.enabled, rules: fields.rules[env] ?? current.rules }];
    }),
  );
  const next: F = {
    ...feature,
    defaultValue: fields.defaultValue,
    environments,
    prerequisites: fields.prerequisites,
    archived: fields.archived,
    description: fields.metadata.description,
    project: fields.metadata.project,
    tags: fields.metadata.tags,
  };
  if (fields.holdout === null) delete next.holdout;
  else if (fields.holdout) next.holdout = fields.holdout;
  // The owner's email is derived from the owner: a different owner's is not known here.
  if (fields.metadata.owner !== feature.owner) {
    next.owner = fields.metadata.owner;
    delete next.ownerEmail;
  }
  return next;
}

/**
 * A stored revision's fields, completed from the live feature where the revision predates a field
 * (published revisions recorded before drafts existed hold only the default value and rules).
 */
export function completeFields(stored: Partial<RevisionFields>, live: RevisionFields): RevisionFields {
  return {
    defaultValue: stored.defaultValue ?? live.defaultValue,
    rules: stored.rules ?? live.rules,
    environmentsEnabled: { ...live.environmentsEnabled, ...stored.environmentsEnabled },
    prerequisites: stored.prerequisites ?? live.prerequisites,
    archived: stored.archived ?? live.archived,
    metadata: { ...live.metadata, ...stored.metadata },
    ...(stored.holdout !== undefined ? { holdout: stored.holdout } : live.holdout !== undefined ? { holdout: live.holdout } : {}),
  };
}

/** One field both the draft and the live version changed since the draft's base, differently. */
export interface MergeConflict {
  name: string;
  key: string;
  resolved: boolean;
  base: string;
  live: string;
  revision: string;
}

/** How a conflict is settled on rebase: keep the draft's side (`overwrite`) or the live one (`discard`). */
export type MergeStrategy = 'overwrite' | 'discard';

/** What a merge of a draft into the live version gives: the merged fields, or the conflicts that stop it. */
export type MergeOutcome =
  | { success: true; merged: RevisionFields; conflicts: MergeConflict[] }
  | { success: false; conflicts: MergeConflict[] };

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);
const shown = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));

/**
 * One value merged three ways, as GrowthBook merges every field: the draft's value when only the
 * draft changed it (or both changed it alike), the live one when only live changed it, a conflict
 * when both changed it differently. The engine's one merge rule; each resource reports conflicts its way.
 */
export function mergeThreeWay<T>(values: { base: T; live: T; revision: T }): { value: T; conflict: boolean } {
  const { base, live, revision } = values;
  if (same(revision, base) || same(revision, live)) return { value: live, conflict: false };
  if (same(live, base)) return { value: revision, conflict: false };
  return { value: live, conflict: true };
}

/** `mergeThreeWay` with a feature conflict recorded (settled by `strategy` if one is given). */
function mergeValue<T>(
  field: { name: string; key: string },
  values: { base: T; live: T; revision: T },
  conflicts: MergeConflict[],
  strategy?: MergeStrategy,
): T {
  const { value, conflict } = mergeThreeWay(values);
  if (!conflict) return value;
  conflicts.push({ ...field, resolved: !!strategy, base: shown(values.base), live: shown(values.live), revision: shown(values.revision) });
  return strategy === 'overwrite' ? values.revision : values.live;
}

/** One top-level field of a flat revision both sides changed differently, with the three values as they are. */
export interface FieldConflict {
  field: string;
  base: unknown;
  live: unknown;
  revision: unknown;
  resolved: boolean;
}

/**
 * How a flat field's conflict is settled on rebase: the draft's value (`overwrite`), the live one
 * (`discard`), or for lists both, live's first then the draft's others (`union`).
 */
export type FieldStrategy = MergeStrategy | 'union';

/**
 * GrowthBook's merge of a flat revision (saved groups, and later configs and constants): each of
 * `fields` merged three ways as `mergeThreeWay` merges a value; a conflict is settled by
 * `strategies[field]` (with `customValues[field]` taking the place of a union when given).
 */
export function mergeFlat<F extends Record<string, unknown>>(
  fields: ReadonlyArray<keyof F & string>,
  versions: { live: F; base: F; revision: F },
  settle: { strategies?: Record<string, FieldStrategy>; customValues?: Record<string, unknown[]> } = {},
): { success: true; merged: F; conflicts: FieldConflict[] } | { success: false; conflicts: FieldConflict[] } {
  const { live, base, revision } = versions;
  const conflicts: FieldConflict[] = [];
  const merged = { ...live };
  for (const field of fields) {
    const values = { base: base[field], live: live[field], revision: revision[field] };
    const { value, conflict } = mergeThreeWay(values);
    if (!conflict) {
      merged[field] = value;
      continue;
    }
    const strategy = settle.strategies?.[field];
    conflicts.push({ field, ...values, resolved: !!strategy });
    if (strategy === 'overwrite') merged[field] = values.revision;
    if (strategy === 'union') {
      const union = settle.customValues?.[field] ?? [...new Set([...((values.live as unknown[]) ?? []), ...((values.revision as unknown[]) ?? [])])];
      merged[field] = union as F[typeof field];
    }
  }
  if (conflicts.some((conflict) => !conflict.resolved)) return { success: false, conflicts };
  return { success: true, merged, conflicts };
}

/** The fields of `next` that differ from `previous`, by name (what a flat revision proposes). */
export function changedFields<F extends Record<string, unknown>>(fields: ReadonlyArray<keyof F & string>, previous: F, next: F): Array<keyof F & string> {
  return fields.filter((field) => !same(previous[field], next[field]));
}

/** The ids of `rules` that are also in every list of `others`, in `rules`' order. */
const commonOrder = (rules: FeatureRule[], ...others: FeatureRule[][]) =>
  rules.map((rule) => rule.id).filter((id) => others.every((list) => list.some((rule) => rule.id === id)));

/**
 * One environment's rules merged rule by rule (matched by id): each rule as `mergeValue` merges a
 * value (an absent rule is a deletion), conflicts keyed `rules.<ruleId>`; competing reorders of the
 * rules all three share conflict as `rules.order`. The merged list follows the live order, or the
 * draft's when only the draft reordered; rules only the draft added go last, in the draft's order.
 */
function mergeRules(
  env: string,
  lists: { base: FeatureRule[]; live: FeatureRule[]; revision: FeatureRule[] },
  conflicts: MergeConflict[],
  strategies: Record<string, MergeStrategy>,
): FeatureRule[] {
  const { base, live, revision } = lists;
  if (same(revision, base) || same(revision, live)) return live;
  if (same(live, base)) return revision;
  const byId = (list: FeatureRule[]) => new Map(list.map((rule) => [rule.id, rule]));
  const [baseById, liveById, revisionById] = [byId(base), byId(live), byId(revision)];
  const ids = [...new Set([...live, ...revision, ...base].map((rule) => rule.id))];
  const merged = new Map<string, FeatureRule | undefined>();
  for (const id of ids) {
    const key = `rules.${id}`;
    const values = { base: baseById.get(id), live: liveById.get(id), revision: revisionById.get(id) };
    merged.set(id, mergeValue({ name: `Rule ${id} - ${env}`, key }, values, conflicts, strategies[key]));
  }
  const baseOrder = commonOrder(base, live, revision);
  const order = mergeValue(
    { name: `Rules order - ${env}`, key: 'rules.order' },
    { base: baseOrder, live: commonOrder(live, base, revision), revision: commonOrder(revision, base, live) },
    conflicts,
    strategies['rules.order'],
  );
  // The merged rules in the chosen order of shared rules; the others keep their place in live, then the draft.
  const sequence = [...live.map((rule) => rule.id), ...revision.map((rule) => rule.id).filter((id) => !liveById.has(id))];
  const shared = new Set(order);
  let next = 0;
  const ordered = sequence.map((id) => (shared.has(id) ? order[next++]! : id));
  return ordered.flatMap((id) => {
    const rule = merged.get(id);
    return rule ? [rule] : [];
  });
}

/**
 * GrowthBook's three-way merge of a draft (`revision`, branched from `base`) into the `live` version,
 * field by field: default value, each environment's rules (rule by rule), each environment's toggle,
 * prerequisites, archived, each metadata field. A field only one side changed takes that side; a
 * field both changed differently is a conflict, settled on rebase by `strategies[conflict.key]`.
 * When `base` is the live version itself, the draft simply wins.
 */
export function mergeRevision(
  live: RevisionFields,
  base: RevisionFields,
  revision: RevisionFields,
  strategies: Record<string, MergeStrategy> = {},
): MergeOutcome {
  const conflicts: MergeConflict[] = [];
  // The blanket `rules` key settles every rule-level conflict at once.
  const ruleStrategies = new Proxy(strategies, { get: (all, key: string) => all[key] ?? (key.startsWith('rules.') ? all.rules : undefined) });
  const field = <T>(name: string, key: string, pick: (fields: RevisionFields) => T) =>
    mergeValue({ name, key }, { base: pick(base), live: pick(live), revision: pick(revision) }, conflicts, strategies[key]);
  const envs = [...new Set([...Object.keys(live.rules), ...Object.keys(revision.rules), ...Object.keys(live.environmentsEnabled), ...Object.keys(revision.environmentsEnabled)])];
  const merged: RevisionFields = {
    defaultValue: field('Default Value', 'defaultValue', (f) => f.defaultValue),
    rules: Object.fromEntries(
      envs.map((env) => [
        env,
        mergeRules(env, { base: base.rules[env] ?? [], live: live.rules[env] ?? [], revision: revision.rules[env] ?? [] }, conflicts, ruleStrategies),
      ]),
    ),
    environmentsEnabled: Object.fromEntries(
      envs.map((env) => [
        env,
        field(`Env Enabled - ${env}`, `environmentsEnabled.${env}`, (f) => f.environmentsEnabled[env] ?? false),
      ]),
    ),
    prerequisites: field('Prerequisites', 'prerequisites', (f) => f.prerequisites),
    archived: field('Archived', 'archived', (f) => f.archived),
    metadata: {
      description: field('Metadata - description', 'metadata.description', (f) => f.metadata.description),
      owner: field('Metadata - owner', 'metadata.owner', (f) => f.metadata.owner),
      project: field('Metadata - project', 'metadata.project', (f) => f.metadata.project),
      tags: field('Metadata - tags', 'metadata.tags', (f) => f.metadata.tags),
    },
  };
  const holdout = field('Holdout', 'holdout', (f) => f.holdout ?? null);
  // Kept absent when no side has a holdout, so fields without one compare as before.
  if (holdout !== null || [live, base, revision].some((f) => f.holdout)) merged.holdout = holdout;
  if (conflicts.some((conflict) => !conflict.resolved)) return { success: false, conflicts };
  return { success: true, merged, conflicts };
}

/** What a merge changes in the live version, field by field (GrowthBook's merge `result`); empty when nothing. */
export function mergeChanges(live: RevisionFields, merged: RevisionFields) {
  const envs = [...new Set([...Object.keys(live.rules), ...Object.keys(merged.rules)])];
  const changedRules = envs.filter((env) => !same(live.rules[env] ?? [], merged.rules[env] ?? []));
  const toggles = Object.entries(merged.environmentsEnabled).filter(([env, on]) => (live.environmentsEnabled[env] ?? false) !== on);
  const metadata = (Object.keys(merged.metadata) as Array<keyof RevisionMetadata>).filter((k) => !same(live.metadata[k], merged.metadata[k]));
  return {
    ...(merged.defaultValue !== live.defaultValue ? { defaultValue: merged.defaultValue } : {}),
    ...(changedRules.length ? { rules: Object.fromEntries(changedRules.map((env) => [env, merged.rules[env] ?? []])) } : {}),
    ...(toggles.length ? { environmentsEnabled: Object.fromEntries(toggles) } : {}),
    ...(!same(live.prerequisites, merged.prerequisites) ? { prerequisites: merged.prerequisites } : {}),
    ...(live.archived !== merged.archived ? { archived: merged.archived } : {}),
    ...(!same(live.holdout, merged.holdout) ? { holdout: merged.holdout ?? null } : {}),
    ...(metadata.length ? { metadata: Object.fromEntries(metadata.map((k) => [k, merged.metadata[k]])) as Partial<RevisionMetadata> } : {}),
  };
}

/** Whether two revisions' fields are the same (then a publish would change nothing). */
export const sameFields = (a: RevisionFields, b: RevisionFields) => same(a, b);

/** Refuses an action the revision's status does not allow. */
export function assertStatus(status: RevisionStatus, allowed: RevisionStatus[], action: string): void {
  if (!allowed.includes(status)) {
    // As GrowthBook answers it: a bad request naming the status.
    throw new InvalidInputError(`Cannot ${action} a revision with status "${status}"`);
  }
}

/** The revision set aside: only an open one can be (it can be reopened). */
export function discarded<R extends { status: RevisionStatus }>(revision: R): R {
  assertStatus(revision.status, openStatuses, 'discard');
  return { ...revision, status: 'discarded' };
}

/** A discarded revision open again as a plain draft, its verdicts cleared. */
export function reopened<R extends { status: RevisionStatus; reviews?: RevisionReview[] }>(revision: R): R {
  assertStatus(revision.status, ['discarded'], 'reopen');
  return { ...revision, status: 'draft', reviews: [] };
}

/** The rule ids of a revision, each once, in the order GrowthBook's flat list shows them (environment by environment). */
export function ruleIds(fields: RevisionFields, environments: string[]): string[] {
  return [...new Set(environments.flatMap((env) => (fields.rules[env] ?? []).map((rule) => rule.id)))];
}

/** The rules in the order `order` gives, in every environment; `order` must name every rule exactly once. */
export function reorderRules(fields: RevisionFields, order: string[], environments: string[]): RevisionFields {
  const existing = ruleIds(fields, environments);
  const repeated = order.find((id, i) => order.indexOf(id) !== i);
  if (repeated) throw new InvalidInputError(`Request body: [ruleIds] names rule ${repeated} twice`);
  const unknown = order.find((id) => !existing.includes(id));
  if (unknown) throw new InvalidInputError(`Request body: [ruleIds] no rule ${unknown} in this revision`);
  const missing = existing.find((id) => !order.includes(id));
  if (missing) throw new InvalidInputError(`Request body: [ruleIds] must name every rule of the revision; ${missing} is missing`);
  const position = (rule: FeatureRule) => order.indexOf(rule.id);
  return { ...fields, rules: Object.fromEntries(Object.entries(fields.rules).map(([env, rules]) => [env, [...rules].sort((a, b) => position(a) - position(b))])) };
}

/** The revision without the rule `ruleId`, in every environment; undefined when no environment has it. */
export function withoutRule(fields: RevisionFields, ruleId: string): RevisionFields | undefined {
  if (!Object.values(fields.rules).some((rules) => rules.some((rule) => rule.id === ruleId))) return undefined;
  return { ...fields, rules: Object.fromEntries(Object.entries(fields.rules).map(([env, rules]) => [env, rules.filter((rule) => rule.id !== ruleId)])) };
}

/**
 * What going from `before` to `after` touches, as the review decision reads it: the default value,
 * prerequisites or archiving reach every environment; metadata too, but rules may exempt it; rules and
 * toggles per environment.
 */
export function featureChangeScope(before: RevisionFields, after: RevisionFields, environments: string[]): ChangeScope {
  const other = before.defaultValue !== after.defaultValue || !same(before.prerequisites, after.prerequisites) || before.archived !== after.archived;
  return {
    global: other ? 'other' : same(before.metadata, after.metadata) ? 'none' : 'metadata',
    ruleEnvironments: environments.filter((env) => !same(before.rules[env] ?? [], after.rules[env] ?? [])),
    toggledEnvironments: environments.filter((env) => (before.environmentsEnabled[env] ?? false) !== (after.environmentsEnabled[env] ?? false)),
    environmentCount: environments.length,
  };
}
