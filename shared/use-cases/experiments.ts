import * as contract from '../contracts/experiment-status';
import * as experimentsContract from '../contracts/experiments';
import { type Experiment, type PostExperimentBody } from '../contracts/experiments';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { assertReferences } from '../db/repository';
import {
  assertNotHoldout,
  futureStart,
  checklistIncompleteError,
  rescheduledExperiment,
  stagedStart,
  startedExperiment,
  stoppedExperiment,
} from '../domain/experiment-status';
import { linkedFeature, startChecklist, type ChecklistFacts } from '../domain/start-checklist';
import { enhancedStatus, newExperiment, phaseReferences, templateDefaults, updatedExperiment } from '../domain/experiments';
import { paginated } from '../domain/pagination';
import { InvalidInputError } from '../errors';
import { assertCan, canInEveryEnvironment, type Permission, type Principal } from '../permissions';
import { dashboards } from '../store/dashboards';
import { changeExperiment } from '../store/experiment-schedule';
import { experimentTemplates } from '../store/experiment-templates';
import { readLaunchState, type LaunchState } from '../store/launch-checklists';
import { assertExperimentReferences, assertTrackingKeyFree, experiments } from '../store/experiments';
import { allFeatures, environmentIds, featureIds, features } from '../store/features';
import { assertNotLockedByRamp } from './ramp-lockdown';
import { startEarly } from '../concurrency';
import { ownerForCreate, resolveOwner } from '../store/members';
import { sdkConnections } from '../store/sdk-connections';
import { projectOf, readableOr404, visibleTo } from './read-access';

/** GrowthBook's wording for a staged start, e.g. "Jan 5, 2030 at 9:30 AM UTC". */
const utc = (date: string) => {
  const at = new Date(date);
  const day = at.toLocaleString('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric', year: 'numeric' });
  const time = at.toLocaleString('en-US', { timeZone: 'UTC', hour: 'numeric', minute: '2-digit', hour12: true });
  return `${day} at ${time} UTC`;
};

/** The body with the template's fields filled in where the request leaves them out. */
async function withTemplate(orgId: string, body: PostExperimentBody, now: string): Promise<PostExperimentBody> {
  if (!body.templateId) return body;
  const template = await experimentTemplates.find(orgId, body.templateId);
  if (!template) throw new InvalidInputError(`Request body: [templateId] no experiment template has the id ${body.templateId}`);
  for (const field of ['datasourceId', 'assignmentQueryId'] as const) {
    if (body[field] !== undefined)
      throw new InvalidInputError(`Request body: [${field}] comes from the template; leave it out when templateId is given`);
  }
  return { ...templateDefaults(template, now), ...body };
}

/**
 * The environments whose SDK payload starting or stopping `experiment` changes, as GrowthBook's
 * getAffectedEnvsForExperiment: all of them when it has visual changes or URL redirects (those are not
 * scoped to an environment), else each one where a linked feature is on with a rule of the experiment.
 */
async function affectedEnvironments(orgId: string, experiment: Experiment): Promise<string[]> {
  if (experiment.hasVisualChangesets || experiment.hasURLRedirects) return environmentIds(orgId);
  const linked = await allFeatures(orgId, { all: [`experiment:${experiment.id}`] });
  const serving = linked.flatMap((feature) =>
    Object.entries(feature.environments).flatMap(([env, settings]) =>
      settings.enabled && settings.rules.some((rule) => rule.type === 'experiment-ref' && rule.experimentId === experiment.id) ? [env] : [],
    ),
  );
  return [...new Set(serving)];
}

/** Raises 403 unless the caller may run `experiment` in every environment it serves in (GrowthBook's `canRunExperiment`). */
export async function assertMayRun(auth: Principal, permission: Permission, experiment: Experiment): Promise<void> {
  assertCan(auth, permission, projectOf(experiment));
  // Only a role limited to some environments needs to know which ones the experiment serves in (a read).
  if (canInEveryEnvironment(auth, permission, projectOf(experiment))) return;
  assertCan(auth, permission, projectOf(experiment), await affectedEnvironments(auth.orgId, experiment));
}

/**
 * What the start checklist reads besides the experiment: the features that reference it, whether an SDK
 * connection exists, and its launch checklist with the tasks it completed (read here unless `launch` is given).
 */
export async function checklistFacts(orgId: string, experiment: Experiment, launch?: LaunchState): Promise<ChecklistFacts> {
  const [linked, connections, { manualTasks, completedTasks }] = await Promise.all([
    allFeatures(orgId, { all: [`experiment:${experiment.id}`] }),
    sdkConnections.list(orgId, { limit: 1, offset: 0 }),
    launch ?? readLaunchState(orgId, experiment),
  ]);
  return { linkedFeatures: linked.map((feature) => linkedFeature(feature, experiment.id)), sdkConnections: connections.total, manualTasks, completedTasks };
}

/** `GET /experiment-names`: the id and name of every experiment that is not archived. */
export async function getExperimentNames({
  query,
  auth,
}: UseCaseInput<typeof contract.getExperimentNames>): UseCaseOutput<typeof contract.getExperimentNames> {
  const found = await experiments.allTagged(auth.orgId, query.projectId ? [`project:${query.projectId}`] : [], visibleTo(auth));
  return { experiments: found.filter((e) => !e.archived).map((e) => ({ id: e.id, name: e.name })) };
}

/** `GET /experiments/{id}`: get an experiment. */
export async function getExperiment({
  params,
  auth,
}: UseCaseInput<typeof experimentsContract.getExperiment>): UseCaseOutput<typeof experimentsContract.getExperiment> {
  const experiment = await experiments.get(auth.orgId, params.id);
  readableOr404(auth, experiment, projectOf(experiment), 'Experiment', params.id);
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) } };
}

/** `GET /experiments`: list experiments. */
export async function listExperiments({
  query,
  auth,
}: UseCaseInput<typeof experimentsContract.listExperiments>): UseCaseOutput<typeof experimentsContract.listExperiments> {
  if (query.experimentId && query.trackingKey) {
    throw new InvalidInputError('Querystring: [experimentId] is the old name of trackingKey; give only one of them');
  }
  const trackingKey = query.trackingKey ?? query.experimentId;
  const tags = [
    ...(query.projectId ? [`project:${query.projectId}`] : []),
    ...(query.datasourceId ? [`datasource:${query.datasourceId}`] : []),
    ...(trackingKey ? [`trackingKey:${trackingKey}`] : []),
    ...(query.status ? [`status:${query.status}`] : []),
  ];
  return paginated(
    'experiments',
    await experiments.list(auth.orgId, { limit: query.limit, offset: query.offset, tags, visible: visibleTo(auth) }),
    query,
  );
}

/**
 * GrowthBook refuses to start an experiment while a ramp with lockdown runs on a feature that references it; its REST
 * API lets nobody bypass that. `linkedIds` may be read before the experiment (it needs only its id), as a start does.
 */
async function assertLinkedFeaturesUnlocked(auth: Principal, experimentId: string, linkedIds?: Promise<string[]>): Promise<void> {
  const ids = await (linkedIds ?? featureIds(auth.orgId, { all: [`experiment:${experimentId}`] }));
  if (!ids.length) return;
  const linked = await features.getMany(auth.orgId, ids);
  await Promise.all(linked.map((feature) => assertNotLockedByRamp(auth, feature, false)));
}

/** `POST /experiments/{id}/start`: start a draft experiment (or stage its scheduled start). */
export async function postExperimentStart({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postExperimentStart>): UseCaseOutput<typeof contract.postExperimentStart> {
  let message: string | undefined;
  // Which features reference the experiment, read beside the experiment itself: the lockdown check then adds no round trip.
  const linkedIds = startEarly(featureIds(auth.orgId, { all: [`experiment:${params.id}`] }));
  const experiment = await changeExperiment(auth.orgId, params.id, async (current) => {
    await assertMayRun(auth, contract.postExperimentStart.permission, current);
    assertNotHoldout(current);
    const now = new Date().toISOString();
    const startAt = futureStart(current, now);
    if (startAt) {
      message = `Experiment had a schedule set for a future date and was successfully staged to start on ${utc(startAt)}`;
      return stagedStart(current, startAt);
    }
    if (!body.skipChecklist && current.status === 'draft') {
      const remaining = startChecklist(current, await checklistFacts(auth.orgId, current)).filter(
        (item) => item.required && item.status === 'incomplete',
      );
      if (remaining.length) throw checklistIncompleteError(remaining);
    }
    await assertLinkedFeaturesUnlocked(auth, current.id, linkedIds);
    return startedExperiment(current, now);
  });
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) }, ...(message ? { message } : {}) };
}

/** `POST /experiments/{id}/stop`: stop a running experiment and record its results, or change the results of a stopped one. */
export async function postExperimentStop({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postExperimentStop>): UseCaseOutput<typeof contract.postExperimentStop> {
  const experiment = await changeExperiment(auth.orgId, params.id, async (current) => {
    await assertMayRun(auth, contract.postExperimentStop.permission, current);
    assertNotHoldout(current);
    return stoppedExperiment(current, body, new Date().toISOString());
  });
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) } };
}

/** `POST /experiments`: create an experiment. */
export async function postExperiment({
  body: input,
  auth,
}: UseCaseInput<typeof experimentsContract.postExperiment>): UseCaseOutput<typeof experimentsContract.postExperiment> {
  const now = new Date().toISOString();
  const body = await withTemplate(auth.orgId, input, now);
  assertCan(auth, experimentsContract.postExperiment.permission, body.project ? [body.project] : []);
  // GrowthBook refuses a new experiment whose owner is not a member.
  const owner = await ownerForCreate(auth.orgId, body.owner, auth.memberId, true);
  const data = newExperiment(body, owner, now);
  await Promise.all([
    assertExperimentReferences(auth.orgId, body, data.settings),
    assertReferences(auth.orgId, features, phaseReferences(body.phases).features),
    assertReferences(auth.orgId, dashboards, body.defaultDashboardId ? [{ field: 'defaultDashboardId', id: body.defaultDashboardId }] : []),
  ]);
  if (!body.bypassDuplicateKeyCheck) await assertTrackingKeyFree(auth.orgId, body.trackingKey);
  const experiment = await experiments.create(auth.orgId, data);
  return { experiment };
}

/** `PUT /experiments/{id}/schedule`: replace an experiment's scheduled start. */
export async function putExperimentSchedule({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.putExperimentSchedule>): UseCaseOutput<typeof contract.putExperimentSchedule> {
  const experiment = await changeExperiment(auth.orgId, params.id, async (current) => {
    await assertMayRun(auth, contract.putExperimentSchedule.permission, current);
    assertNotHoldout(current);
    return rescheduledExperiment(current, body, new Date().toISOString());
  });
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) } };
}

/** `POST /experiments/{id}`: partially update an experiment. */
export async function updateExperiment({
  params,
  body,
  auth,
}: UseCaseInput<typeof experimentsContract.updateExperiment>): UseCaseOutput<typeof experimentsContract.updateExperiment> {
  const now = new Date().toISOString();
  const experiment = await changeExperiment(auth.orgId, params.id, async (current) => {
    assertCan(auth, experimentsContract.updateExperiment.permission, current.project ? [current.project] : []);
    // `""` moves it out of its project: that needs the permission where it lands, outside any project (as GrowthBook).
    if (body.project !== undefined) assertCan(auth, experimentsContract.updateExperiment.permission, body.project ? [body.project] : []);
    const owner = body.owner !== undefined ? await resolveOwner(auth.orgId, body.owner) : undefined;
    const next = updatedExperiment(current, body, owner, now);
    // A draft updated to running starts, as GrowthBook's update routes it through its start: the lockdown applies.
    if (current.status === 'draft' && next.status === 'running') await assertLinkedFeaturesUnlocked(auth, current.id);
    await Promise.all([
      assertExperimentReferences(auth.orgId, body, next.settings),
      assertReferences(auth.orgId, features, phaseReferences(body.phases).features),
      assertReferences(auth.orgId, dashboards, body.defaultDashboardId ? [{ field: 'defaultDashboardId', id: body.defaultDashboardId }] : []),
    ]);
    if (body.trackingKey && body.trackingKey !== current.trackingKey && !body.bypassDuplicateKeyCheck) {
      await assertTrackingKeyFree(auth.orgId, body.trackingKey);
    }
    return next;
  });
  return { experiment };
}
