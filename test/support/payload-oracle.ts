import { payloadEntry, type PayloadEntry } from '../../shared/domain/sdk-payload';
import { environments } from '../../shared/store/environments';
import { allFeatures } from '../../shared/store/features';
import { buildSdkPayload } from '../../shared/store/sdk-payloads';

/**
 * The SDK payload built from scratch: every feature of the organization read now and translated,
 * through the same builder the served payload uses, without the stored entries, versions or any cache.
 * `dateUpdated` is left out, since only the stored versions know it.
 */
export async function payloadFromScratch(orgId: string, environment: string, projects: string[] = []) {
  const [features, found] = await Promise.all([allFeatures(orgId, { all: [] }), environments.find(orgId, environment)]);
  const entries: Record<string, PayloadEntry> = {};
  for (const feature of found ? features : []) {
    const entry = payloadEntry(feature, environment);
    if (entry) entries[feature.id] = entry;
  }
  const { dateUpdated: _date, ...payload } = await buildSdkPayload({ orgId, environment, projects, dateUpdated: '' }, entries, []);
  return payload;
}

/** A served payload body without its `dateUpdated`, to compare with `payloadFromScratch`. */
export const withoutDate = ({ dateUpdated: _date, ...body }: Record<string, unknown>) => body;
