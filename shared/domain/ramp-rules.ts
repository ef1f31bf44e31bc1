import type { RulePatch } from '../contracts/ramp-schedules';

/**
 * The fields of a feature rule a ramp schedule may change. Everything else on a rule (id, type,
 * description, hashAttribute, ...) is never touched by a ramp.
 */
export interface RuleState {
  coverage?: number;
  condition?: string;
  savedGroupTargeting?: { matchType: 'all' | 'any' | 'none'; savedGroups: string[] }[];
  prerequisites?: { id: string; condition: string }[];
  /** A JSON-encoded string on force and rollout rules (experiment rules hold their variations here). */
  value?: unknown;
  enabled?: boolean;
  /** Set by a monitored ramp: the payload buckets the rule by explicit hash ranges (see shared/domain/ramp-monitoring.ts). */
  rampBucketing?: RampBucketing;
}

/**
 * How a rollout rule under a monitored ramp is served: by explicit hash ranges, and on a monitored
 * step as an experiment (treatment `[0, coverage)`, control `[0.5, 0.5 + coverage)`) tracked as `key`.
 */
export interface RampBucketing {
  key: string;
  monitored: boolean;
}

/** A feature rule as the ramp sees it: its id and type, the fields a ramp changes, and whatever else it holds. */
export type RampableRule = { id: string; type: string } & RuleState;

/** A feature as the ramp sees it: rules per environment. */
export interface RampableFeature {
  id: string;
  environments: Record<string, { rules: RampableRule[] }>;
}

/** A patch without its `ruleId`: what is applied to a rule. */
export type RulePatchFields = Omit<RulePatch, 'ruleId'>;

const rampedFields = ['coverage', 'condition', 'savedGroupTargeting', 'prerequisites', 'value', 'enabled', 'rampBucketing'] as const;

/** Rule types that carry a coverage, and those whose `value` a patch's `force` sets. */
const coverageTypes = ['rollout', 'experiment'];
const valueTypes = ['force', 'rollout'];

const copy = <T>(value: T): T => (value === undefined ? value : structuredClone(value));

/**
 * The stored rule value for a patch's `force` (any JSON value): a string as it is (the way feature
 * values store strings), anything else JSON-encoded.
 */
export function forceToValue(force: unknown): string {
  return typeof force === 'string' ? force : JSON.stringify(force);
}

/**
 * Applies a patch to a rule. A key absent from the patch leaves the field alone; `null` resets it to
 * its default: coverage 1, condition "", no saved groups, no prerequisites, enabled. `force` sets
 * `value` (`null` there is the JSON value null, as the reference types `force` as any JSON).
 */
export function applyRulePatch<R extends RampableRule>(rule: R, patch: RulePatchFields): R {
  const next: R = { ...rule };
  if (patch.coverage !== undefined) next.coverage = patch.coverage ?? 1;
  if (patch.condition !== undefined) next.condition = patch.condition ?? '';
  if (patch.savedGroups !== undefined) {
    next.savedGroupTargeting = (patch.savedGroups ?? []).map((group) => ({ matchType: group.match, savedGroups: [...group.ids] }));
  }
  if (patch.prerequisites !== undefined) next.prerequisites = (patch.prerequisites ?? []).map((p) => ({ ...p }));
  if (patch.force !== undefined) next.value = forceToValue(patch.force);
  if (patch.enabled !== undefined) next.enabled = patch.enabled ?? true;
  return next;
}

/** The ramp-controlled fields of a rule, as they are now (absent fields stay absent). */
export function captureRuleState(rule: RuleState): RuleState {
  const state: RuleState = {};
  for (const field of rampedFields) {
    if (rule[field] !== undefined) (state as Record<string, unknown>)[field] = copy(rule[field]);
  }
  return state;
}

/** The rule with its ramp-controlled fields set back exactly to `state` (fields absent there are removed). */
export function restoreRuleState<R extends RampableRule>(rule: R, state: RuleState): R {
  const next = { ...rule } as Record<string, unknown>;
  for (const field of rampedFields) {
    if (state[field] === undefined) delete next[field];
    else next[field] = copy(state[field]);
  }
  return next as R;
}

/** Why a patch cannot apply to a rule of this type, naming the patch field; undefined when it fits. */
export function patchMisfit(patch: RulePatchFields, rule: RampableRule): { field: string; message: string } | undefined {
  if (patch.coverage !== undefined && !coverageTypes.includes(rule.type)) {
    return { field: 'coverage', message: `rule ${rule.id} is a ${rule.type} rule, which has no coverage` };
  }
  if (patch.force !== undefined && !valueTypes.includes(rule.type)) {
    return { field: 'force', message: `rule ${rule.id} is a ${rule.type} rule, which has no single value to force` };
  }
  return undefined;
}

/**
 * The rule with this id in each environment of the feature that has it, or only in `environment`
 * when one is named. Empty when the feature has no such rule.
 */
export function locateRule(
  feature: RampableFeature,
  ruleId: string,
  environment?: string | null,
): Record<string, RampableRule> {
  const found: Record<string, RampableRule> = {};
  for (const [env, settings] of Object.entries(feature.environments ?? {})) {
    if (environment && env !== environment) continue;
    const rule = settings.rules?.find((candidate) => candidate.id === ruleId);
    if (rule) found[env] = rule;
  }
  return found;
}

/** One change a ramp transition makes to one rule in one environment of a feature. */
export interface RuleWrite {
  targetId: string;
  featureId: string;
  ruleId: string;
  environment: string;
  /** Applied first (rollback, jump): the ramp-controlled fields go back exactly to the state captured at start. */
  restore?: RuleState;
  /** Applied next. */
  patch: RulePatchFields;
  /** Applied last when present: the rule's `rampBucketing` (null removes it). */
  bucketing?: RampBucketing | null;
}

/** A rule after one write: `restore` first, then `patch`, then `bucketing`. */
export function applyRuleWrite<R extends RampableRule>(rule: R, write: Pick<RuleWrite, 'restore' | 'patch' | 'bucketing'>): R {
  const next = applyRulePatch(write.restore ? restoreRuleState(rule, write.restore) : rule, write.patch);
  if (write.bucketing === undefined) return next;
  if (write.bucketing === null) {
    const { rampBucketing: _removed, ...rest } = next;
    return rest as R;
  }
  return { ...next, rampBucketing: { ...write.bucketing } };
}

/** The feature with every write addressed to it applied to its rules; other features' writes are ignored. */
export function applyRuleWrites<F extends RampableFeature>(feature: F, writes: RuleWrite[]): F {
  const environments = { ...feature.environments };
  for (const write of writes) {
    const settings = environments[write.environment];
    if (write.featureId !== feature.id || !settings) continue;
    environments[write.environment] = {
      ...settings,
      rules: settings.rules.map((rule) => (rule.id === write.ruleId ? applyRuleWrite(rule, write) : rule)),
    };
  }
  return { ...feature, environments };
}
