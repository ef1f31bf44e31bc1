import { toApiFeature, type StoredFeature } from '../domain/features';
import { environmentIds } from '../store/features';
import { payloadEntry } from './entries';
import { loadPayloadReferences } from './references';
import { sdkFeature } from './rules';
import type { KnownReferences } from './types';

/**
 * Features in their API shape: an entry for every environment of the organization, each with the
 * SDK `definition` where the feature is served (reading the saved groups and experiments named).
 * What the request already read (the environment ids, saved groups, experiments) is not read again.
 */
export async function presentFeatures(orgId: string, stored: StoredFeature[], known: KnownReferences & { environments?: string[] } = {}) {
  const envs = known.environments ?? (await environmentIds(orgId));
  const entries = stored.flatMap((feature) => envs.map((env) => payloadEntry(feature, env)).filter((entry) => entry !== undefined));
  const refs = await loadPayloadReferences(orgId, entries, known);
  const now = new Date();
  return stored.map((feature) =>
    toApiFeature(feature, envs, (env) => {
      const entry = payloadEntry(feature, env);
      return entry && JSON.stringify(sdkFeature(feature.id, entry, refs, { now }));
    }),
  );
}
