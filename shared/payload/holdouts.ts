import { createHash } from 'node:crypto';
import type { PayloadHoldout, SdkFeature, SdkRule } from './types';

/**
 * Holdouts in the SDK payload, as GrowthBook emits them: each live holdout a served feature is
 * assigned to becomes a pseudo-feature `$holdout:<id>`, an experiment splitting the held-out
 * share of users into `holdoutcontrol` and `holdouttreatment` (everyone else gets `genpop`). The
 * feature's first rule forces its holdout value for `holdoutcontrol`, so those users do not get
 * what its later rules give; the rest of the traffic goes on to the feature's own rules.
 */

/** The id of a holdout's pseudo-feature in the payload. */
const holdoutFeatureId = (holdoutId: string) => `$holdout:${holdoutId}`;

/**
 * Whether a holdout holds users out in a connection's payload: started and not stopped or
 * archived, on in the environment, and in one of the connection's projects (when either names any).
 */
export function holdoutApplies(holdout: PayloadHoldout, environment: string, projects: string[]): boolean {
  if (holdout.archived || (holdout.stage !== 'running' && holdout.stage !== 'analysis-period')) return false;
  if (!holdout.environments[environment]?.enabled) return false;
  return projects.length === 0 || holdout.projects.length === 0 || holdout.projects.some((project) => projects.includes(project));
}

/** The rule a feature assigned to a holdout starts with: its holdout value for the holdout's control group. */
export function holdoutGateRule(featureId: string, holdoutId: string, value: unknown, includeRuleIds?: boolean): SdkRule {
  return {
    ...(includeRuleIds ? { id: `holdout_${createHash('md5').update(featureId + holdoutId).digest('hex')}` } : {}),
    parentConditions: [{ id: holdoutFeatureId(holdoutId), condition: { value: 'holdoutcontrol' } }],
    force: value,
  };
}

/** A holdout's pseudo-feature: twice the held-out share is bucketed, half of it as control. */
function holdoutFeature(holdout: PayloadHoldout): SdkFeature {
  return {
    defaultValue: 'genpop',
    rules: [
      {
        id: holdoutFeatureId(holdout.id),
        coverage: Math.min(1, holdout.holdoutSize * 2),
        hashAttribute: holdout.hashAttribute,
        seed: holdout.trackingKey,
        hashVersion: 2,
        variations: ['holdoutcontrol', 'holdouttreatment'],
        weights: [0.5, 0.5],
        key: holdout.trackingKey,
        phase: '0',
        meta: [{ key: '0' }, { key: '1' }],
      },
    ],
  };
}

/** The pseudo-features of the holdouts some translated features' gate rules name. */
export function holdoutFeatures(features: Record<string, SdkFeature>, holdouts: Map<string, PayloadHoldout>): Record<string, SdkFeature> {
  const used: Record<string, SdkFeature> = {};
  for (const holdout of holdouts.values()) {
    const id = holdoutFeatureId(holdout.id);
    const gated = Object.values(features).some((feature) => feature.rules?.[0]?.parentConditions?.[0]?.id === id);
    if (gated) used[id] = holdoutFeature(holdout);
  }
  return used;
}
