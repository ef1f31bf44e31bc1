import type { StoredVisualChangeset, StoredVisualChange } from '../contracts/visual-changesets';
import type { UrlRedirect } from '../contracts/url-redirects';
import { inlineCondition, NEVER, parentConditions } from './conditions';
import { hashSecure, hashSecureStrings, isSecure } from './hashing';
import { namespaceFields } from './namespaces';
import { metadataOf, round4, withoutUndefined } from './rules';
import type {
  AutoExperimentVariation,
  Condition,
  PayloadExperiment,
  PayloadOptions,
  PayloadReferences,
  SdkAutoExperiment,
} from './types';

/**
 * The SDK payload's `experiments` array: experiments that change a page by themselves (visual
 * editor changesets and URL redirects), with GrowthBook's auto-experiment fields. The SDK runs
 * each on the pages its `urlPatterns` match, applying the variation's `css` / `js` /
 * `domMutations` or navigating to its `urlRedirect`.
 */

/** What the array is built from: every changeset and redirect of the organization, and their experiments. */
export interface AutoExperimentSources {
  visualChangesets: StoredVisualChangeset[];
  urlRedirects: UrlRedirect[];
  experiments: Map<string, PayloadExperiment>;
}

/** What an SDK connection asks of the array, besides the options every payload takes. */
export interface AutoExperimentOptions extends PayloadOptions {
  projects: string[];
  includeVisualExperiments?: boolean;
  includeRedirectExperiments?: boolean;
  includeDraftExperiments?: boolean;
}

/**
 * Whether an experiment with page changes goes out at all, as GrowthBook decides it: not archived,
 * with a phase, and when stopped only while it releases a variation (drafts too: the connection decides).
 */
function servesAutoExperiment(experiment: PayloadExperiment): boolean {
  if (experiment.archived || !experiment.phases?.length) return false;
  if (experiment.status === 'stopped') {
    return !!experiment.resultSummary?.releasedVariationId && !experiment.resultSummary.excludeFromPayload;
  }
  return true;
}

const hasVisualChanges = (changes: StoredVisualChange[]) =>
  changes.some((change) => !!change.css || !!change.js || change.domMutations.length > 0);

/** A URL redirect is served when its experiment is, and a stopped one only when the released variation has a destination. */
export function servesRedirect(redirect: UrlRedirect, experiment: PayloadExperiment | undefined): experiment is PayloadExperiment {
  if (!experiment || !servesAutoExperiment(experiment)) return false;
  if (experiment.status !== 'stopped') return true;
  return !!redirect.destinationURLs.find((d) => d.variation === experiment.resultSummary?.releasedVariationId)?.url;
}

type Source =
  | { type: 'redirect'; implementationId: string; experiment: PayloadExperiment; redirect: UrlRedirect }
  | { type: 'visual'; implementationId: string; experiment: PayloadExperiment; changeset: StoredVisualChangeset };

/** The sources a connection is served, redirects first (an SDK stops at the first redirect it follows), as GrowthBook orders them. */
function servedSources(sources: AutoExperimentSources, options: AutoExperimentOptions): Source[] {
  const inProjects = (experiment: PayloadExperiment) => options.projects.length === 0 || options.projects.includes(experiment.project ?? '');
  const wanted = (experiment: PayloadExperiment) =>
    inProjects(experiment) && (options.includeDraftExperiments || experiment.status !== 'draft');
  const served: Source[] = [];
  if (options.includeRedirectExperiments) {
    for (const redirect of sources.urlRedirects) {
      const experiment = sources.experiments.get(redirect.experiment);
      if (servesRedirect(redirect, experiment) && wanted(experiment)) {
        served.push({ type: 'redirect', implementationId: redirect.id, experiment, redirect });
      }
    }
  }
  if (options.includeVisualExperiments) {
    // A stopped experiment is served only when its released variation changes something, in any of its changesets.
    const changesOf = new Map<string, StoredVisualChange[]>();
    for (const changeset of sources.visualChangesets) {
      changesOf.set(changeset.experiment, [...(changesOf.get(changeset.experiment) ?? []), ...changeset.visualChanges]);
    }
    for (const changeset of sources.visualChangesets) {
      const experiment = sources.experiments.get(changeset.experiment);
      if (!experiment || !servesAutoExperiment(experiment) || !wanted(experiment)) continue;
      const released = experiment.resultSummary?.releasedVariationId;
      if (experiment.status === 'stopped' && !hasVisualChanges((changesOf.get(experiment.id) ?? []).filter((c) => c.variation === released))) continue;
      served.push({ type: 'visual', implementationId: changeset.id, experiment, changeset });
    }
  }
  return served;
}

function autoExperiment(source: Source, refs: PayloadReferences, options: AutoExperimentOptions): SdkAutoExperiment | undefined {
  const { experiment } = source;
  const phaseIndex = experiment.phases!.length - 1;
  const phase = experiment.phases![phaseIndex];
  const variations = experiment.variations ?? [];
  if (variations.length === 0) return undefined;
  const condition = inlineCondition(phase.targetingCondition, phase.savedGroupTargeting, refs);
  // A phase that targets saved groups that are gone matches nobody, as for feature rules.
  if (condition === NEVER) return undefined;
  const parents = parentConditions(phase.prerequisites, refs);
  const key = experiment.trackingKey || experiment.id;
  const released = experiment.status === 'stopped' ? variations.findIndex((v) => v.variationId === experiment.resultSummary?.releasedVariationId) : -1;
  const hashAttribute = experiment.hashAttribute || undefined;
  return withoutUndefined<SdkAutoExperiment>({
    key,
    // GrowthBook's id of the change, by which SDKs can block it (`blockedChangeIds`).
    changeId: hashSecure('', `${key}_${source.type}_${source.implementationId}`),
    status: experiment.status,
    variations: variations.map((variation): AutoExperimentVariation => {
      if (source.type === 'redirect') {
        return { urlRedirect: source.redirect.destinationURLs.find((d) => d.variation === variation.variationId)?.url ?? '' };
      }
      const change = source.changeset.visualChanges.find((c) => c.variation === variation.variationId);
      return { css: change?.css ?? '', js: change?.js ?? '', domMutations: change?.domMutations ?? [] };
    }),
    hashVersion: experiment.hashVersion,
    hashAttribute,
    fallbackAttribute: experiment.fallbackAttribute || undefined,
    disableStickyBucketing: experiment.disableStickyBucketing || undefined,
    bucketVersion: experiment.bucketVersion || undefined,
    minBucketVersion: experiment.minBucketVersion || undefined,
    urlPatterns:
      source.type === 'redirect'
        ? [{ include: true, pattern: source.redirect.urlPattern, type: 'simple' }]
        : source.changeset.urlPatterns,
    weights: variations.map((variation) =>
      round4(phase.trafficSplit?.find((split) => split.variationId === variation.variationId)?.weight ?? 1 / variations.length),
    ),
    meta: variations.map((variation, i) =>
      withoutUndefined({ key: variation.key ?? String(i), name: options.includeExperimentNames ? variation.name : undefined }),
    ),
    seed: phase.seed || undefined,
    name: options.includeExperimentNames ? experiment.name : undefined,
    phase: String(phaseIndex),
    // A stopped experiment releases one variation to everyone its phase covers.
    force: released >= 0 ? released : undefined,
    condition,
    ...(parents.length ? { parentConditions: parents } : {}),
    coverage: phase.coverage ?? 1,
    ...namespaceFields(phase.namespace && { ...phase.namespace, name: phase.namespace.namespaceId }, hashAttribute, refs.namespaces),
    persistQueryString: source.type === 'redirect' && source.redirect.persistQueryString ? true : undefined,
    metadata: metadataOf(experiment, options.metadata),
  });
}

/**
 * The `experiments` array of a connection's payload; undefined when the connection includes
 * neither visual nor redirect experiments (GrowthBook then leaves the field out).
 */
export function autoExperiments(
  sources: AutoExperimentSources,
  refs: PayloadReferences,
  options: AutoExperimentOptions,
): SdkAutoExperiment[] | undefined {
  if (!options.includeVisualExperiments && !options.includeRedirectExperiments) return undefined;
  const built = servedSources(sources, options).flatMap((source) => autoExperiment(source, refs, options) ?? []);
  const salt = options.secureAttributeSalt;
  const attributes = refs.attributes;
  if (salt !== undefined && attributes && [...attributes.values()].some(isSecure)) {
    for (const experiment of built) {
      if (experiment.condition) experiment.condition = hashSecureStrings(experiment.condition, salt, attributes) as Condition;
    }
  }
  return built;
}
