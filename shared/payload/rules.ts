import { decodeValue } from '../domain/features';
import type { FeatureRule } from '../contracts/features';
import { inlineCondition, NEVER, parentConditions } from './conditions';
import { hashSecureStrings, isSecure } from './hashing';
import { holdoutFeatures, holdoutGateRule } from './holdouts';
import { namespaceFields } from './namespaces';
import type { RampBucketing } from '../domain/ramp-rules';
import type { Condition, PayloadEntry, PayloadOptions, PayloadReferences, SdkFeature, SdkMetadata, SdkPayload, SdkRule } from './types';

/**
 * Rule translation: a stored feature entry as the GrowthBook SDKs read it, its rules translated
 * against the references read with it (saved groups, experiments, namespaces, holdouts).
 */

/** The `metadata` a connection asks for, of a feature or an experiment; undefined when empty. */
export function metadataOf(
  entity: { project?: string; tags?: string[]; customFields?: Record<string, unknown> },
  options: PayloadOptions['metadata'],
): SdkMetadata | undefined {
  if (!options) return undefined;
  const metadata: SdkMetadata = {};
  if (options.includeProjectIdInMetadata && entity.project) metadata.projects = [options.projectIds?.get(entity.project) ?? entity.project];
  if (options.includeTagsInMetadata && entity.tags?.length) metadata.tags = entity.tags;
  if (options.includeCustomFieldsInMetadata && options.allowedCustomFieldsInMetadata?.length && entity.customFields) {
    const allowed = options.allowedCustomFieldsInMetadata.filter((field) => entity.customFields![field] !== undefined);
    if (allowed.length) metadata.customFields = Object.fromEntries(allowed.map((field) => [field, entity.customFields![field]]));
  }
  return Object.keys(metadata).length ? metadata : undefined;
}

/**
 * Whether a rule is live at `now` under its schedule, as GrowthBook decides it: before the first
 * dated step the rule is in the opposite state of that step; after each step it is in that step's state.
 */
export function scheduledOn(scheduleRules: FeatureRule['scheduleRules'], now: Date): boolean {
  const steps = (scheduleRules ?? [])
    .filter((step) => step.timestamp)
    .map((step) => ({ at: Date.parse(step.timestamp!), enabled: step.enabled }))
    .filter((step) => !Number.isNaN(step.at))
    .sort((a, b) => a.at - b.at);
  if (steps.length === 0) return true;
  let on = !steps[0].enabled;
  for (const step of steps) {
    if (step.at > now.getTime()) break;
    on = step.enabled;
  }
  return on;
}

/** A weight clamped to [0, 1] and rounded to 4 decimals, as GrowthBook sends weights. */
export const round4 = (weight: number) => Math.round(Math.min(1, Math.max(0, weight)) * 10_000) / 10_000;

/** The object without its undefined fields. */
export const withoutUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

function experimentRefRule(
  rule: Extract<FeatureRule, { type: 'experiment-ref' }>,
  entry: PayloadEntry,
  refs: PayloadReferences,
  value: (text: string) => unknown,
  options: PayloadOptions,
): SdkRule | undefined {
  const experiment = refs.experiments.get(rule.experimentId);
  if (!experiment || experiment.archived || experiment.status === 'draft' || experiment.resultSummary?.excludeFromPayload) return undefined;
  const valueOf = (variationId: string) =>
    value(rule.variations.find((variation) => variation.variationId === variationId)?.value ?? entry.defaultValue);
  const phaseIndex = (experiment.phases?.length ?? 0) - 1;
  const phase = experiment.phases?.[phaseIndex];
  if (!phase) return undefined;
  const condition = inlineCondition(rule.condition, rule.savedGroupTargeting, refs);
  const phaseCondition = inlineCondition(phase.targetingCondition, phase.savedGroupTargeting, refs);
  if (condition === NEVER || phaseCondition === NEVER) return undefined;
  const conditions = [condition, phaseCondition].filter((c): c is Condition => c !== undefined);
  const parents = [...parentConditions(rule.prerequisites, refs), ...parentConditions(phase.prerequisites, refs)];
  const hashAttribute = experiment.hashAttribute || undefined;
  // Bucketing settings are shared by a running experiment and the release of a stopped one, so
  // released users stay in the same coverage and buckets.
  const common: SdkRule = withoutUndefined({
    ...(options.includeRuleIds ? { id: rule.id } : {}),
    ...(conditions.length ? { condition: conditions.length === 1 ? conditions[0] : { $and: conditions } } : {}),
    ...(parents.length ? { parentConditions: parents } : {}),
    coverage: phase.coverage ?? 1,
    hashAttribute,
    fallbackAttribute: experiment.fallbackAttribute || undefined,
    disableStickyBucketing: experiment.disableStickyBucketing || undefined,
    bucketVersion: experiment.bucketVersion || undefined,
    minBucketVersion: experiment.minBucketVersion || undefined,
    ...namespaceFields(phase.namespace && { ...phase.namespace, name: phase.namespace.namespaceId }, hashAttribute, refs.namespaces),
    seed: phase.seed || undefined,
    hashVersion: experiment.hashVersion,
    metadata: metadataOf(experiment, options.metadata),
  });
  if (experiment.status === 'stopped') {
    // A stopped experiment serves the variation it released, or nothing at all.
    const released = experiment.resultSummary?.releasedVariationId;
    return released ? { ...common, force: valueOf(released) } : undefined;
  }
  const variations = experiment.variations ?? [];
  if (variations.length === 0) return undefined;
  return withoutUndefined({
    ...common,
    variations: variations.map((variation) => valueOf(variation.variationId)),
    weights: variations.map((variation) =>
      round4(phase.trafficSplit?.find((split) => split.variationId === variation.variationId)?.weight ?? 1 / variations.length),
    ),
    key: experiment.trackingKey || experiment.id,
    meta: variations.map((variation, i) =>
      withoutUndefined({ key: variation.key ?? String(i), name: options.includeExperimentNames ? variation.name : undefined }),
    ),
    phase: String(phaseIndex),
    name: options.includeExperimentNames ? experiment.name : undefined,
  });
}

/**
 * A rollout rule on a monitored ramp step, as an experiment tracked under the ramp's key: treatment
 * (variation 1, the rule's value) is `[0, coverage)`, control (variation 0) is `[0.5, 0.5 + coverage)`,
 * a passthrough arm whose users go on to the next rules as if the rule were not there. The rollout's
 * own seed and hash version are kept, so treatment is exactly the users the rollout would serve, and a
 * step up only adds users to each arm. SDKs without explicit ranges get the rollout instead (scrub.ts).
 */
function monitoredRolloutRule(
  featureId: string,
  rule: Extract<FeatureRule, { type: 'rollout' }>,
  bucketing: RampBucketing,
  base: SdkRule,
  treatment: unknown,
  control: unknown,
): SdkRule {
  const coverage = Math.min(Math.max(rule.coverage, 0), 0.5);
  return withoutUndefined({
    ...base,
    key: bucketing.key,
    variations: [control, treatment],
    weights: [0.5, 0.5],
    coverage: coverage * 2,
    ranges: [
      [0.5, 0.5 + coverage],
      [0, coverage],
    ] as Array<[number, number]>,
    meta: [{ key: '0', passthrough: true }, { key: '1' }],
    hashAttribute: rule.hashAttribute || undefined,
    seed: rule.seed || featureId,
    hashVersion: rule.hashVersion,
    phase: '0',
  });
}

/** One stored rule as the SDK reads it; undefined when it can match nobody or is not live at `options.now`. */
function sdkRule(featureId: string, rule: FeatureRule, entry: PayloadEntry, refs: PayloadReferences, options: PayloadOptions): SdkRule | undefined {
  if (!scheduledOn(rule.scheduleRules, options.now)) return undefined;
  // A 0% rollout serves nobody; dropping it also spares the SDKs' rounding at the edge.
  if (rule.type === 'rollout' && rule.coverage <= 0) return undefined;
  const value = (text: string) => decodeValue(entry.valueType, text)?.value ?? null;
  if (rule.type === 'experiment-ref') return experimentRefRule(rule, entry, refs, value, options);
  const condition = inlineCondition(rule.condition, rule.savedGroupTargeting, refs);
  if (condition === NEVER) return undefined;
  const parents = parentConditions(rule.prerequisites, refs);
  const base: SdkRule = {
    ...(options.includeRuleIds ? { id: rule.id } : {}),
    ...(condition ? { condition } : {}),
    ...(parents.length ? { parentConditions: parents } : {}),
  };
  switch (rule.type) {
    case 'force':
      return { ...base, force: value(rule.value) };
    case 'rollout': {
      const bucketing = (rule as { rampBucketing?: RampBucketing }).rampBucketing;
      if (bucketing?.monitored) return monitoredRolloutRule(featureId, rule, bucketing, base, value(rule.value), value(entry.defaultValue));
      if (rule.coverage >= 1) return { ...base, force: value(rule.value) };
      // No hashVersion means 1 to the SDKs, as GrowthBook leaves it: a rollout moved over keeps its users.
      return withoutUndefined({
        ...base,
        force: value(rule.value),
        coverage: rule.coverage,
        // Under a monitored ramp, the same half-open range as the treatment arm, so no user moves between steps.
        range: bucketing ? ([0, rule.coverage] as [number, number]) : undefined,
        hashAttribute: rule.hashAttribute || undefined,
        seed: rule.seed || undefined,
        hashVersion: rule.hashVersion,
      });
    }
    case 'experiment': {
      const values = rule.value ?? [];
      return withoutUndefined({
        ...base,
        variations: values.map((v) => value(v.value)),
        weights: values.map((v) => round4(v.weight)),
        coverage: rule.coverage ?? 1,
        key: rule.trackingKey || featureId,
        hashAttribute: rule.hashAttribute || undefined,
        fallbackAttribute: rule.fallbackAttribute || undefined,
        disableStickyBucketing: rule.disableStickyBucketing || undefined,
        bucketVersion: rule.bucketVersion || undefined,
        minBucketVersion: rule.minBucketVersion || undefined,
        ...namespaceFields(rule.namespace, rule.hashAttribute, refs.namespaces),
        meta: values.map((v, i) => withoutUndefined({ key: String(i), name: v.name || undefined })),
      });
    }
  }
}

/**
 * A feature's SDK definition: parsed default value, translated rules (disabled ones, ones outside
 * their schedule and rules that can match nobody dropped; no `rules` when none are left). Feature
 * prerequisites come first, as one gating rule: when a prerequisite feature does not evaluate to true, the feature is off.
 */
export function sdkFeature(featureId: string, entry: PayloadEntry, refs: PayloadReferences, options: PayloadOptions): SdkFeature {
  const rules: SdkRule[] = [];
  if (entry.holdout && refs.holdouts?.has(entry.holdout.id)) {
    const value = decodeValue(entry.valueType, entry.holdout.value)?.value ?? null;
    rules.push(holdoutGateRule(featureId, entry.holdout.id, value, options.includeRuleIds));
  }
  if (entry.prerequisites.length) {
    rules.push({ parentConditions: entry.prerequisites.map((id) => ({ id, condition: { value: true }, gate: true })) });
  }
  for (const rule of entry.rules) {
    const translated = sdkRule(featureId, rule, entry, refs, options);
    if (translated) rules.push(translated);
  }
  const salt = options.secureAttributeSalt;
  const attributes = refs.attributes;
  if (salt !== undefined && attributes && [...attributes.values()].some(isSecure)) {
    for (const rule of rules) if (rule.condition) rule.condition = hashSecureStrings(rule.condition, salt, attributes) as Condition;
  }
  const defaultValue = decodeValue(entry.valueType, entry.defaultValue)?.value ?? null;
  const metadata = metadataOf(entry, options.metadata);
  return { defaultValue, ...(rules.length ? { rules } : {}), ...(metadata ? { metadata } : {}) };
}

/**
 * The body GrowthBook SDKs fetch, for one environment's entries and an SDK connection's projects
 * (none means every project). Features are in id order, so equal content gives an equal body.
 */
export function sdkPayload(
  entries: Record<string, PayloadEntry>,
  options: PayloadOptions & { projects: string[]; refs: PayloadReferences; dateUpdated: string },
): SdkPayload {
  const features: Record<string, SdkFeature> = {};
  for (const id of Object.keys(entries).sort()) {
    const entry = entries[id];
    if (options.projects.length && !options.projects.includes(entry.project)) continue;
    features[id] = sdkFeature(id, entry, options.refs, options);
  }
  if (options.refs.holdouts) Object.assign(features, holdoutFeatures(features, options.refs.holdouts));
  return { status: 200, features, dateUpdated: options.dateUpdated };
}
