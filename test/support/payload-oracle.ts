import { payloadEntry } from '../../shared/payload/entries';
import type { PayloadEntry } from '../../shared/payload/types';
import { environmentParents, servedProjects, withInheritedSettings } from '../../shared/payload/environment-inheritance';
import { attributes } from '../../shared/store/attributes';
import { environments } from '../../shared/store/environments';
import { allFeatures } from '../../shared/store/features';
import type { PayloadScope } from '../../shared/payload/scope';
import { buildSdkPayload } from '../../shared/payload/serve';

/**
 * The SDK payload built from scratch: every feature of the organization read now and translated,
 * through the same builder the served payload uses, without the stored entries, versions, attribute
 * types or any cache.
 * `dateUpdated` is left out, since only the stored versions know it.
 */
export async function payloadFromScratch(orgId: string, environment: string, scope: Partial<PayloadScope> = {}) {
  const [features, all, allAttributes] = await Promise.all([allFeatures(orgId, { all: [] }), environments.all(orgId), attributes.all(orgId)]);
  const found = all.find((candidate) => candidate.id === environment);
  const projects = servedProjects(scope.projects ?? [], found?.projects);
  const parents = environmentParents(all);
  const entries: Record<string, PayloadEntry> = {};
  for (const feature of found && projects ? features : []) {
    const entry = payloadEntry(withInheritedSettings(feature, parents), environment);
    if (entry) entries[feature.id] = entry;
  }
  // The attributes themselves, not the types item the served payload reads: that item must agree with them.
  const { payload } = await buildSdkPayload({ ...scope, projects: projects ?? [], orgId, environment, dateUpdated: '' }, entries, [], new Date(), {
    attributes: allAttributes,
  });
  const { dateUpdated: _date, ...rest } = payload;
  return rest;
}

/** A served payload body without its `dateUpdated`, to compare with `payloadFromScratch`. */
export const withoutDate = ({ dateUpdated: _date, ...body }: Record<string, unknown>) => body;
