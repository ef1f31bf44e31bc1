import { autoExperiments, type AutoExperimentSources } from './auto-experiments';
import { payloadReferenceIds } from './entries';
import { experiments } from '../store/experiments';
import { namespaces } from '../store/namespaces';
import { projects } from '../store/projects';
import { savedGroups } from '../store/saved-groups';
import { metadataOptions, type PayloadScope } from './scope';
import type { PayloadReferences, SdkAutoExperiment } from './types';
import { urlRedirects } from '../store/url-redirects';
import { visualChangesets } from '../store/visual-changesets';

/** What the payload's `experiments` array is built from, as read for one connection. */
export interface LoadedAutoExperiments {
  sources: AutoExperimentSources;
  /** The references the experiments name; attribute types come with the payload's own references. */
  refs: Omit<PayloadReferences, 'attributes'>;
  /** Public id of each project the experiments name, for `includeProjectIdInMetadata`. */
  projectIds: Map<string, string>;
  /** The `dateUpdated` of everything read: the payload is at least as new. */
  dates: string[];
}

/**
 * Reads what a connection's `experiments` array needs; undefined when it includes neither visual
 * nor redirect experiments. Three round trips whatever the number of experiments: the
 * organization's changesets and redirects (one Query each), then their
 * experiments (BatchGets side by side), then the saved groups and namespaces their phases name (and projects).
 */
export async function loadAutoExperiments(scope: PayloadScope): Promise<LoadedAutoExperiments | undefined> {
  if (!scope.includeVisualExperiments && !scope.includeRedirectExperiments) return undefined;
  const { orgId } = scope;
  const [changesets, redirects] = await Promise.all([
    scope.includeVisualExperiments ? visualChangesets.all(orgId) : [],
    scope.includeRedirectExperiments ? urlRedirects.all(orgId) : [],
  ]);
  const experimentIds = [...new Set([...changesets, ...redirects].map((source) => source.experiment))];
  const found = experimentIds.length ? await experiments.getMany(orgId, experimentIds) : [];
  const { savedGroups: groupIds, namespaces: namespaceIds } = payloadReferenceIds([], found);
  const projectIds = scope.includeProjectIdInMetadata ? [...new Set(found.map((experiment) => experiment.project).filter(Boolean))] : [];
  const [groups, named, definitions] = await Promise.all([
    groupIds.length ? savedGroups.getMany(orgId, groupIds) : [],
    projectIds.length ? projects.getMany(orgId, projectIds) : [],
    namespaceIds.length ? namespaces.getMany(orgId, namespaceIds) : [],
  ]);
  return {
    sources: { visualChangesets: changesets, urlRedirects: redirects, experiments: new Map(found.map((experiment) => [experiment.id, experiment])) },
    refs: {
      savedGroups: new Map(groups.map((group) => [group.id, group])),
      experiments: new Map(),
      namespaces: new Map(definitions.map((ns) => [ns.id, ns])),
    },
    projectIds: new Map(named.map((project) => [project.id, project.publicId || project.id])),
    dates: [...changesets, ...redirects, ...found, ...groups, ...definitions].map((item) => item.dateUpdated),
  };
}

/**
 * The connection's `experiments` array from what `loadAutoExperiments` read and the organization's
 * attribute types, at `now`, hashed with `salt` for `hashSecureAttributes`.
 */
export function autoExperimentsFor(
  loaded: LoadedAutoExperiments,
  attributes: PayloadReferences['attributes'],
  scope: PayloadScope,
  salt: string | undefined,
  now: Date,
): SdkAutoExperiment[] | undefined {
  return autoExperiments(loaded.sources, { ...loaded.refs, attributes }, {
    now,
    projects: scope.projects,
    includeVisualExperiments: scope.includeVisualExperiments,
    includeRedirectExperiments: scope.includeRedirectExperiments,
    includeDraftExperiments: scope.includeDraftExperiments,
    includeExperimentNames: scope.includeExperimentNames,
    secureAttributeSalt: salt,
    metadata: metadataOptions(scope, loaded.projectIds),
  });
}
