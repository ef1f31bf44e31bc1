import type { SdkCapability } from './sdk-versions';
import type { SdkFeature, SdkRule } from './types';

/**
 * A built payload cut down to what an SDK with `capabilities` reads right, as GrowthBook's payload
 * builder cuts it (`getFeatureDefinition`, `generateAutoExperimentsPayload` and
 * `getPayloadAllowedKeys` in growthbook/growthbook):
 * - without `prerequisites`, a feature with a prerequisite left after `reducePrerequisites` (its own,
 *   or one of a rule or of an experiment's phase) is left out whole, so an old SDK never serves it ungated; holdout rules
 *   (`$holdout:` parents) are left out and the holdouts no rule names any more with them; an
 *   auto experiment with `parentConditions` is left out;
 * - without `redirects`, URL-redirect experiments are left out;
 * - without `looseUnmarshalling` (SDKs that refuse unknown keys), a feature keeps only
 *   `defaultValue` and `rules`, and a rule only the keys its SDK's capabilities allow (and its `id`,
 *   which only `includeRuleIds` puts there).
 * Saved-group references are switched off before the build (`capabilitySettings`), not here.
 */
export function scrubForCapabilities<P extends { features: Record<string, SdkFeature>; experiments?: unknown[] }>(
  payload: P,
  capabilities: ReadonlySet<SdkCapability>,
): P {
  let features = payload.features;
  let experiments = payload.experiments as Array<{ parentConditions?: unknown[]; variations?: Array<{ urlRedirect?: unknown }> }> | undefined;
  if (!capabilities.has('bucketingV2')) features = withoutRampRanges(features);
  if (!capabilities.has('prerequisites')) {
    features = withoutPrerequisites(features);
    experiments = experiments?.filter((experiment) => !experiment.parentConditions?.length);
  }
  if (!capabilities.has('redirects')) {
    experiments = experiments?.filter((experiment) => !experiment.variations?.some((variation) => variation.urlRedirect !== undefined));
  }
  if (!capabilities.has('looseUnmarshalling')) {
    const allowed = allowedRuleKeys(capabilities);
    features = Object.fromEntries(
      Object.entries(features).map(([id, feature]) => [
        id,
        {
          defaultValue: feature.defaultValue,
          ...(feature.rules ? { rules: feature.rules.map((rule) => pick(rule, allowed)) } : {}),
        },
      ]),
    );
  }
  if (features === payload.features && experiments === payload.experiments) return payload;
  return { ...payload, features, ...(experiments ? { experiments } : {}) };
}

/** A monitored ramp step's experiment (rules.ts): explicit ranges and a passthrough control arm. */
const isMonitoredRamp = (rule: SdkRule) => !!rule.ranges && rule.meta?.[0]?.passthrough === true && rule.variations?.length === 2;

/**
 * For SDKs that cannot read explicit hash ranges (no `bucketingV2`), a monitored ramp step is served as
 * the rollout it grows from: the rule's value to the treatment users (`coverage` of them, hashed the
 * way the rollout is), and nothing for the control arm, which those SDKs could not keep apart. Their
 * users take no part in the analysis (they report no exposure of the ramp's experiment).
 */
function withoutRampRanges(features: Record<string, SdkFeature>): Record<string, SdkFeature> {
  let changed = false;
  const out = Object.fromEntries(
    Object.entries(features).map(([id, feature]) => {
      if (!feature.rules?.some(isMonitoredRamp)) return [id, feature];
      changed = true;
      const rules = feature.rules.map((rule) => {
        if (!isMonitoredRamp(rule)) return rule;
        const { key: _key, variations, weights: _weights, ranges, meta: _meta, phase: _phase, coverage: _coverage, ...rest } = rule;
        return { ...rest, force: variations![1], coverage: ranges![1]![1] };
      });
      return [id, { ...feature, rules }];
    }),
  );
  return changed ? out : features;
}

const HOLDOUT = '$holdout:';

const isHoldoutRule = (rule: SdkRule) => rule.parentConditions?.length === 1 && rule.parentConditions[0].id.startsWith(HOLDOUT);

function withoutPrerequisites(features: Record<string, SdkFeature>): Record<string, SdkFeature> {
  const kept: Record<string, SdkFeature> = {};
  for (const [id, feature] of Object.entries(features)) {
    const rules = feature.rules ?? [];
    if (rules.some((rule) => rule.parentConditions?.length && !isHoldoutRule(rule))) continue;
    const ungated = rules.filter((rule) => !rule.parentConditions?.length);
    if (ungated.length === rules.length) kept[id] = feature;
    else {
      const { rules: _rules, ...rest } = feature;
      kept[id] = ungated.length ? { ...rest, rules: ungated } : rest;
    }
  }
  // A holdout feature only serves the holdout rules of other features: none is left to read it.
  for (const id of Object.keys(kept)) if (id.startsWith(HOLDOUT)) delete kept[id];
  return kept;
}

/** The rule keys an SDK that refuses unknown keys reads, by capability (`id` is kept apart). */
function allowedRuleKeys(capabilities: ReadonlySet<SdkCapability>): Set<string> {
  const keys = ['id', 'key', 'variations', 'weights', 'coverage', 'condition', 'namespace', 'force', 'hashAttribute'];
  if (capabilities.has('bucketingV2')) keys.push('hashVersion', 'range', 'ranges', 'meta', 'seed', 'name', 'phase');
  if (capabilities.has('namespacesV2')) keys.push('filters');
  if (capabilities.has('stickyBucketing')) keys.push('fallbackAttribute', 'disableStickyBucketing', 'bucketVersion', 'minBucketVersion');
  if (capabilities.has('prerequisites')) keys.push('parentConditions');
  return new Set(keys);
}

const pick = <T extends object>(value: T, keys: Set<string>): T =>
  Object.fromEntries(Object.entries(value).filter(([key]) => keys.has(key))) as T;

/**
 * The connection settings as the payload build must read them for these capabilities: saved-group
 * references only when the SDK can resolve them (otherwise groups are inlined), as GrowthBook does.
 */
export function capabilitySettings<S extends { savedGroupReferencesEnabled?: boolean }>(settings: S, capabilities: ReadonlySet<SdkCapability>): S {
  if (!settings.savedGroupReferencesEnabled || capabilities.has('savedGroupReferences')) return settings;
  return { ...settings, savedGroupReferencesEnabled: false };
}
