import { setFlagsFromString } from 'node:v8';
import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import type { RemoteEvalBody } from '../contracts/sdk-payload';
import type { SdkFeature, SdkPayload, SdkRule } from './types';

// The SDK matches `$regex` with JavaScript's backtracking engine, on attributes anyone may post. Writes refuse
// nested quantifiers (see contracts/condition-patterns.ts), but a condition stored before that check, or a
// pattern the check misses (`(a|a)*`), would still take seconds. With this flag V8 runs a pattern that has
// backtracked too much (50,000 times by default) again on its linear-time engine: `^(a+)+$` on 5,000 characters
// takes a millisecond. Patterns with backreferences or lookarounds cannot move and still backtrack.
// A pattern compiled before the flag was set falls back too (measured on Node 20).
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** A resolved rule: the value to force, and the experiment exposures the client SDK reports with its trackingCallback. */
type ResolvedRule = SdkRule & { tracks?: Array<{ experiment: unknown; result: unknown }> };

/**
 * A payload resolved for one user, as GrowthBook's remote evaluation answers: every feature
 * evaluated on the server by the GrowthBook SDK itself (no second evaluator), each given as its
 * value; a value that came from an experiment is a forced rule carrying `tracks`, so the client
 * SDK still fires its trackingCallback. Targeting never leaves the server.
 */
export function remoteEvaluate(payload: SdkPayload, input: RemoteEvalBody): SdkPayload {
  const gb = new GrowthBook({
    features: payload.features as FeatureApiResponse['features'],
    // A connection that sends groups by reference keeps `$inGroup` in its rules: the SDK looks them up here.
    savedGroups: payload.savedGroups,
    attributes: input.attributes ?? {},
    forcedVariations: input.forcedVariations ?? {},
    url: input.url ?? '',
  });
  if (input.forcedFeatures?.length) gb.setForcedFeatures(new Map(input.forcedFeatures));
  const features: Record<string, SdkFeature> = {};
  try {
    for (const id of Object.keys(payload.features)) {
      const result = gb.evalFeature(id);
      if (result.source === 'experiment' && result.experiment && result.experimentResult) {
        const rule: ResolvedRule = { force: result.value, tracks: [{ experiment: result.experiment, result: result.experimentResult }] };
        features[id] = { defaultValue: result.value, rules: [rule] };
      } else {
        features[id] = { defaultValue: result.value };
      }
    }
  } finally {
    gb.destroy();
  }
  return { status: 200, features, dateUpdated: payload.dateUpdated };
}
