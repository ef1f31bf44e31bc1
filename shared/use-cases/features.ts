import type * as z from 'zod/mini';
import * as contract from '../contracts/features';
import { getStaleFeatures as staleSpec, revertFeature as revertSpec } from '../contracts/feature-cleanup';
import type { UseCaseInput } from '../contracts/spec';
import { allInOrder, startEarly } from '../concurrency';
import { InvalidInputError, NotFoundError } from '../errors';
import { assertCan, type Principal } from '../permissions';
import { decided, retryOnConflict } from '../db/optimistic';
import {
  applyFeatureUpdate,
  applyToggle,
  authorOf,
  featureAtRevision,
  newFeature,
  publishedEnvironments,
  revertedFeature,
  sameContent,
  toggleOn,
  toRevisionView,
  type FeatureContent,
  type StoredFeature,
} from '../domain/features';
import { environmentParents } from '../payload/environment-inheritance';
import { presentFeatures } from '../payload/definitions';
import { environments as environmentStore, type StoredEnvironment } from '../store/environments';
import { paginated } from '../domain/pagination';
import { effectiveValue, isFeatureStale } from '../domain/stale-features';
import { experiments } from '../store/experiments';
import { openStatuses } from '../domain/revisions';
import { latestRevisions, type StoredRevision } from '../store/feature-revisions';
import { assertReferencesValid } from './feature-references';
import { approvalSettings, assertLiveChangeAllowed, bypassedGatesKey } from './approvals';
import type { BypassedGate } from '../contracts/common';
import type { RevisionLogEntry } from '../domain/revision-reviews';
import {
  allFeatures,
  environmentIds,
  featureIds,
  featureRevision,
  features,
  listFeaturePage,
  prepareFeatureChanges,
  removeFeature,
  writeFeatureChanges,
  type ChangeAuthor,
  type FeatureChange,
  type FeatureFilter,
} from '../store/features';
import { transact, type TransactionOp, type Versioned } from '../db/repository';
import type { ApprovalSettings } from '../domain/revision-reviews';
import { ownerForCreate, resolveOwner } from '../store/members';
import type { KnownReferences } from '../payload/types';
import { assertProjectsExist, projects } from '../store/projects';
import { findSdkKey } from '../store/sdk-connections';
import { readableOr404, visibleTo } from './read-access';
import { assertNotLockedByRamp } from './ramp-lockdown';

type Response<Spec extends { response: z.core.$ZodType }> = Promise<z.input<Spec['response']>>;

const projectsOf = (feature: Pick<FeatureContent, 'project'>) => (feature.project ? [feature.project] : []);

/**
 * The organization's environments, started at once so the read goes out beside the feature's; a retry
 * (after a lost race, perhaps to an environment change) reads them afresh.
 */
function environmentsFor(orgId: string) {
  const first = startEarly(environmentStore.all(orgId));
  return (attempt: number): Promise<StoredEnvironment[]> => (attempt === 1 ? first : environmentStore.all(orgId));
}

/** What a change decides from the live feature: the next content, and the references it read while validating. */
export interface Decision {
  next: StoredFeature;
  read?: KnownReferences;
  /** The draft the change publishes (as read): it becomes the live revision. */
  publishes?: StoredRevision;
  /** Writes that belong to the change (its events, a schedule it ends, the ramps a published draft starts), given the feature as it will be written. */
  also?: (written: StoredFeature) => TransactionOp[];
  /** The log of the new revision when the change publishes no draft (a revert records itself there). */
  log?: RevisionLogEntry[];
  /** The change makes an earlier revision live again: the organization may let reverts skip approval. */
  revert?: boolean;
}

/**
 * One feature's change, decided from the feature as read (with the organization's environments and
 * approval settings): checks that the caller may change it, lets `decide` work out the next content,
 * and checks that the caller may publish where it changes what SDKs see, that no ramp's lockdown holds
 * the feature and that the change needs no approval it lacks (answering the approval gates the caller's
 * authority let it pass). No `change` when nothing is to be written.
 * Inside a retried write, call it through `decided`, so what it throws ends the retries as it is.
 * Callers write the change with `prepareFeatureChanges` (several features' changes at once in one
 * transaction, as a release does).
 */
export async function decideLiveChange(
  auth: Principal,
  current: Versioned<StoredFeature>,
  all: StoredEnvironment[],
  decide: (current: StoredFeature, environments: string[]) => Decision | Promise<Decision>,
  author: ChangeAuthor,
  approvals: ApprovalSettings,
): Promise<{ change?: FeatureChange; also?: Decision['also']; read?: KnownReferences; bypassedGates: BypassedGate[] }> {
  assertCan(auth, 'manageFeatures', projectsOf(current.entity));
  const ids = all.map((environment) => environment.id);
  const { next, read, publishes, also, log, revert } = await decide(current.entity, ids);
  // A published draft is recorded even when it leaves the content as it is (its pending ramps still start).
  if (sameContent(current.entity, next) && !publishes) return { read, bypassedGates: [] };
  await assertNotLockedByRamp(auth, current.entity);
  assertCan(auth, 'publishFeatures', projectsOf(next), publishedEnvironments(current.entity, next, ids));
  const bypassedGates = await assertLiveChangeAllowed(auth, approvals, { current: current.entity, next, environments: all, publishes, revert });
  return { change: { current, next, author, publishes, log }, also, read, bypassedGates };
}

/**
 * The one path every change of a live feature takes (update, toggle, revert, a draft's publish):
 * read the feature, decide the change (`decideLiveChange`), write the feature, its revision, its
 * payload entries and what the decision adds in one transaction conditional on the version read,
 * and answer the feature as presented, with the approval gates bypassed. A lost race reads everything again.
 */
export async function changeLiveFeature(
  auth: Principal,
  id: string,
  decide: (current: StoredFeature, environments: string[]) => Decision | Promise<Decision>,
  author: ChangeAuthor,
) {
  const environments = environmentsFor(auth.orgId);
  // Read beside the feature, so the approval gate costs no round trip of its own.
  const approvals = startEarly(approvalSettings(auth.orgId));
  const { changed, read, ids, bypassedGates } = await retryOnConflict(async (attempt) => {
    const [current, all] = await Promise.all([features.read(auth.orgId, id), environments(attempt)]);
    if (!current) throw new NotFoundError(`Feature ${id} not found`);
    const ids = all.map((environment) => environment.id);
    const { change, also, read, bypassedGates } = await decided(async () => decideLiveChange(auth, current, all, decide, author, await approvals));
    if (!change) return { changed: current.entity, read, ids, bypassedGates };
    const { features: written, ops } = await prepareFeatureChanges(auth.orgId, [change], { parents: environmentParents(all) });
    const changed = written[0]!;
    await transact([...ops, ...(also?.(changed) ?? [])]);
    return { changed, read, ids, bypassedGates };
  });
  const [feature] = await presentFeatures(auth.orgId, [changed], { environments: ids, ...read });
  return { feature: feature!, changed, bypassedGates };
}

/** `changeLiveFeature`, answering the feature as presented and the gates bypassed (what the v1 writes answer). */
async function changeFeature(...args: Parameters<typeof changeLiveFeature>) {
  const { feature, bypassedGates } = await changeLiveFeature(...args);
  return { feature, ...bypassedGatesKey(bypassedGates) };
}

/** `POST /features`: a new feature with revision 1, in the payload of every environment it is on in. */
export async function postFeature({ auth, body }: UseCaseInput<typeof contract.postFeature>): Response<typeof contract.postFeature> {
  const [, owner, all] = await allInOrder([
    body.project ? assertProjectsExist(auth.orgId, [body.project], 'project') : undefined,
    ownerForCreate(auth.orgId, body.owner, auth.memberId),
    environmentStore.all(auth.orgId),
  ]);
  const ids = all.map((environment) => environment.id);
  const defaultStates = Object.fromEntries(all.map((environment) => [environment.id, environment.defaultState]));
  const content = await newFeature(body, { environments: ids, owner, defaultStates });
  assertCan(auth, 'manageFeatures', projectsOf(content));
  // Publishing where it starts on is all a new flag needs: approval rules do not gate a creation, as in
  // GrowthBook (a new flag has no earlier state to review a change against).
  assertCan(auth, 'publishFeatures', projectsOf(content), publishedEnvironments(undefined, content, ids));
  const read = await assertReferencesValid(auth.orgId, content);
  const author = authorOf(auth, 'Created via the REST API');
  const created = await retryOnConflict((attempt) =>
    writeFeatureChanges(auth.orgId, [{ next: content, author }], { parents: environmentParents(all), exactList: attempt <= 2 }),
  );
  const [feature] = await presentFeatures(auth.orgId, [created[0]!], { environments: ids, ...read });
  return { feature };
}

/** `POST /features/{id}`: a partial update, as BEHAVIOR.md merges it. */
export async function updateFeature({ auth, params, body }: UseCaseInput<typeof contract.updateFeature>): Response<typeof contract.updateFeature> {
  return changeFeature(
    auth,
    params.id,
    async (current, environments) => {
      // `""` moves the feature out of its project: that too needs the permission where it lands (globally).
      if (body.project !== undefined) {
        assertCan(auth, 'manageFeatures', body.project ? [body.project] : []);
        if (body.project && !(await projects.find(auth.orgId, body.project))) {
          throw new InvalidInputError(`Request body: [project] project ${body.project} does not exist`);
        }
      }
      const owner = body.owner !== undefined ? await resolveOwner(auth.orgId, body.owner) : undefined;
      const next = await applyFeatureUpdate(current, body, { environments, owner });
      return { next, read: await assertReferencesValid(auth.orgId, next, current) };
    },
    authorOf(auth, 'Updated via the REST API'),
  );
}

/** `POST /features/{id}/toggle`: on or off per environment; a role limited to some environments toggles only those. */
export async function toggleFeature({ auth, params, body }: UseCaseInput<typeof contract.toggleFeature>): Response<typeof contract.toggleFeature> {
  const toggles = Object.fromEntries(Object.entries(body.environments).map(([env, value]) => [env, toggleOn(value)]));
  return changeFeature(
    auth,
    params.id,
    (current, environments) => {
      // As GrowthBook: the environments named must be publishable, whether or not the toggle changes them.
      assertCan(auth, 'publishFeatures', projectsOf(current), Object.keys(toggles));
      return { next: applyToggle(current, toggles, environments) };
    },
    authorOf(auth, body.reason || 'Toggled via the REST API'),
  );
}

/** `POST /features/{id}/revert`: an earlier revision's value and rules published again, as a new revision. */
export async function revertFeature({ auth, params, body }: UseCaseInput<typeof revertSpec>): Response<typeof revertSpec> {
  return changeFeature(
    auth,
    params.id,
    async (current) => {
      const revision = await featureRevision(auth.orgId, current.id, body.revision);
      if (!revision) throw new InvalidInputError(`Request body: [revision] feature ${current.id} has no revision ${body.revision}`);
      if (revision.version === current.revision.version) {
        throw new InvalidInputError(`Request body: [revision] ${body.revision} is the live revision; can only revert to a previously published one`);
      }
      const next = revertedFeature(current, revision);
      // What the old revision named may have been deleted since.
      return { next, read: await assertReferencesValid(auth.orgId, next, current), revert: true };
    },
    authorOf(auth, body.comment || `Reverted to revision ${body.revision}`),
  );
}

/** `DELETE /features/{id}`: the feature, its revisions and its payload entries. */
export async function deleteFeature({ auth, params }: UseCaseInput<typeof contract.deleteFeature>): Response<typeof contract.deleteFeature> {
  await retryOnConflict(async () => {
    const current = await features.read(auth.orgId, params.id);
    if (!current) throw new NotFoundError(`Feature ${params.id} not found`);
    assertCan(auth, 'manageFeatures', projectsOf(current.entity));
    // The environments it has settings in are the ones it can be on in: no need to read the organization's list.
    const configured = Object.keys(current.entity.environments);
    assertCan(auth, 'publishFeatures', projectsOf(current.entity), publishedEnvironments(current.entity, undefined, configured));
    await removeFeature(auth.orgId, current);
  });
  return { deletedId: params.id };
}

/** GrowthBook lists a feature's newest revisions only, ten of them, newest first. */
const REVISIONS_LISTED = 10;

/** `GET /features/{id}`, with `withRevisions` the newest published revisions as served. */
export async function getFeature({ auth, params, query }: UseCaseInput<typeof contract.getFeature>): Response<typeof contract.getFeature> {
  const wanted = query.withRevisions ?? 'none';
  const statuses = { all: undefined, published: ['published'], drafts: openStatuses, none: [] }[wanted];
  // Independent reads go out together: latency is one round trip, not three.
  const [stored, environments, revisions] = await Promise.all([
    features.get(auth.orgId, params.id),
    environmentIds(auth.orgId),
    wanted === 'none' ? [] : latestRevisions(auth.orgId, params.id, REVISIONS_LISTED, statuses),
  ]);
  // One presentation for the feature and its revisions, so the references they name are read once.
  readableOr404(auth, stored, projectsOf(stored), 'Feature', params.id);
  const asServed = revisions.map((revision) => featureAtRevision(stored, revision, environments));
  const [feature, ...served] = await presentFeatures(auth.orgId, [stored, ...asServed], { environments });
  if (wanted === 'none') return { feature: feature! };
  return { feature: { ...feature!, revisions: revisions.map((revision, i) => toRevisionView(revision, served[i]!, environments)) } };
}

/** `skipPagination` is a self-hosting escape hatch: honoured only when the deployment opts in. */
export const skipPaginationAllowed = () => ['true', '1'].includes(process.env.API_ALLOW_SKIP_PAGINATION ?? '');

/** The list filter of `GET /features`' query: the project, what an SDK connection serves, and what the caller may read. */
export async function featureListFilter(auth: Principal, query: { projectId?: string; clientKey?: string }): Promise<FeatureFilter> {
  const filter: FeatureFilter = { all: query.projectId ? [`project:${query.projectId}`] : [], visible: visibleTo(auth) };
  if (query.clientKey) {
    const connection = await findSdkKey(query.clientKey);
    if (!connection || connection.orgId !== auth.orgId) {
      throw new InvalidInputError(`Querystring: [clientKey] no SDK connection has the key ${query.clientKey}`);
    }
    // What the connection serves: on in its environment (and not archived), in one of its projects if it names any.
    filter.all.push(`env:${connection.environment}`);
    if (connection.projects.length) filter.any = connection.projects.map((project) => `project:${project}`);
  }
  return filter;
}

/** `GET /features`: a page (or, where allowed, all) of the features matching the filters, with the total. */
export async function listFeatures({ auth, query }: UseCaseInput<typeof contract.listFeatures>): Response<typeof contract.listFeatures> {
  const filter = await featureListFilter(auth, query);
  if (query.skipPagination && skipPaginationAllowed()) {
    const [all, environments] = await Promise.all([allFeatures(auth.orgId, filter), environmentIds(auth.orgId)]);
    const items = await presentFeatures(auth.orgId, all, { environments });
    return { features: items, limit: items.length, offset: 0, count: items.length, total: items.length, hasMore: false, nextOffset: null };
  }
  // Independent reads go out together: the page and the organization's environments.
  const [page, environments] = await Promise.all([
    listFeaturePage(auth.orgId, { limit: query.limit, offset: query.offset, filter }),
    environmentIds(auth.orgId),
  ]);
  return paginated('features', { items: await presentFeatures(auth.orgId, page.items, { environments }), total: page.total }, query);
}

/** `GET /feature-keys`: every feature id, optionally of one project. */
export async function getFeatureKeys({ auth, query }: UseCaseInput<typeof contract.getFeatureKeys>): Response<typeof contract.getFeatureKeys> {
  return featureIds(auth.orgId, { all: query.projectId ? [`project:${query.projectId}`] : [], visible: visibleTo(auth) });
}

/** `GET /stale-features`: stale and archived features, least recently updated first, with the value to keep per environment. */
export async function getStaleFeatures({ auth, query }: UseCaseInput<typeof staleSpec>): Response<typeof staleSpec> {
  const tags = query.projectId ? [`project:${query.projectId}`] : [];
  // Staleness looks at dependents and experiments, so every feature and experiment (of the project) is read.
  // Only what the caller may read, as GrowthBook's getAllFeatures and getAllExperiments filter.
  const visible = visibleTo(auth);
  const [all, found, environments] = await Promise.all([
    allFeatures(auth.orgId, { all: tags, visible }),
    experiments.allTagged(auth.orgId, tags, visible),
    environmentIds(auth.orgId),
  ]);
  const wanted = query.flagIds?.length ? new Set(query.flagIds) : undefined;
  const experimentById = new Map(found.map((e) => [e.id, e]));
  const now = Date.now();
  const report = all
    .filter((feature) => !wanted || wanted.has(feature.id))
    .sort((a, b) => (a.dateUpdated < b.dateUpdated ? -1 : a.dateUpdated > b.dateUpdated ? 1 : 0)) // not localeCompare: its collator costs a cold start ~25 ms
    .filter((feature) => feature.archived || isFeatureStale(feature, all, found, now).stale)
    .map((feature) => ({
      id: feature.id,
      owner: feature.owner,
      archived: feature.archived,
      dateCreated: feature.dateCreated,
      dateUpdated: feature.dateUpdated,
      valueType: feature.valueType,
      customFields: feature.customFields ?? {},
      environments: Object.fromEntries(environments.map((env) => [env, { value: effectiveValue(feature, env, experimentById) }])),
    }));
  const items = report.slice(query.offset, query.offset + query.limit);
  return paginated('features', { items, total: report.length }, query);
}
