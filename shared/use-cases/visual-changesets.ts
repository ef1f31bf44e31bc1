import * as contract from '../contracts/visual-changesets';
import { allInOrder } from '../concurrency';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import {
  assertUrlPatterns,
  buildVisualChange,
  contentChanged,
  emptyVisualChanges,
  patchVisualChange,
  replaceVisualChanges,
  visualChangesetView,
} from '../domain/visual-changesets';
import { ConflictError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { experiments } from '../store/experiments';
import { createVisualChangeset, visualChangesets, visualChangesetsOf } from '../store/visual-changesets';
import { projectOf, readableOfExperimentOr404, readableOr404 } from './read-access';

/** `GET /visual-changesets/{id}`: get a visual changeset. */
export async function getVisualChangeset({
  params,
  query,
  auth,
}: UseCaseInput<typeof contract.getVisualChangeset>): UseCaseOutput<typeof contract.getVisualChangeset> {
  const changeset = await visualChangesets.get(auth.orgId, params.id);
  await readableOfExperimentOr404(auth, changeset, changeset.experiment, 'Visual changeset', params.id);
  const experiment = query.includeExperiment ? await experiments.find(auth.orgId, changeset.experiment) : undefined;
  return { visualChangeset: visualChangesetView(changeset), ...(experiment ? { experiment } : {}) };
}

/** `GET /experiments/{id}/visual-changesets`: list an experiment's visual changesets. */
export async function listVisualChangesets({
  params,
  auth,
}: UseCaseInput<typeof contract.listVisualChangesets>): UseCaseOutput<typeof contract.listVisualChangesets> {
  const [experiment, changesets] = await allInOrder([experiments.get(auth.orgId, params.id), visualChangesetsOf(auth.orgId, params.id)]);
  readableOr404(auth, experiment, projectOf(experiment), 'Experiment', params.id);
  return { visualChangesets: changesets.map(visualChangesetView) };
}

/** `POST /visual-changesets/{id}/visual-change`: add a visual change to a visual changeset. */
export async function postVisualChange({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postVisualChange>): UseCaseOutput<typeof contract.postVisualChange> {
  const changeset = await visualChangesets.update(auth.orgId, params.id, async (current) => {
    const experiment = await experiments.get(auth.orgId, current.experiment);
    assertCan(auth, contract.postVisualChange.permission, experiment.project ? [experiment.project] : []);
    const change = buildVisualChange(body, experiment);
    if (current.visualChanges.some((c) => c.id === change.id)) {
      throw new ConflictError('already_exists', `Visual change ${change.id} already exists in visual changeset ${current.id}`);
    }
    return { ...current, visualChanges: [...current.visualChanges, change] };
  });
  // The new change is the one appended last.
  return { nModified: 1, visualChangeId: changeset.visualChanges.at(-1)!.id };
}

/** `POST /experiments/{id}/visual-changesets`: create a visual changeset for an experiment. */
export async function postVisualChangesets({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postVisualChangesets>): UseCaseOutput<typeof contract.postVisualChangesets> {
  assertUrlPatterns(body.urlPatterns);
  const changeset = await createVisualChangeset(auth.orgId, params.id, (experiment) => {
    assertCan(auth, contract.postVisualChangesets.permission, experiment.project ? [experiment.project] : []);
    return {
      id: newId('vcs_'),
      experiment: experiment.id,
      editorUrl: body.editorUrl,
      urlPatterns: body.urlPatterns,
      visualChanges: emptyVisualChanges(experiment),
    };
  });
  return { visualChangeset: visualChangesetView(changeset) };
}

/** `PUT /visual-changesets/{id}/visual-change/{visualChangeId}`: update one visual change of a visual changeset. */
export async function putVisualChange({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.putVisualChange>): UseCaseOutput<typeof contract.putVisualChange> {
  let nModified = 0;
  await visualChangesets.update(auth.orgId, params.id, async (current) => {
    const index = current.visualChanges.findIndex((c) => c.id === params.visualChangeId);
    if (index < 0) throw new NotFoundError(`Visual change ${params.visualChangeId} not found in visual changeset ${current.id}`);
    const experiment = await experiments.get(auth.orgId, current.experiment);
    assertCan(auth, contract.putVisualChange.permission, experiment.project ? [experiment.project] : []);
    const visualChanges = current.visualChanges.with(index, patchVisualChange(current.visualChanges[index], body, experiment));
    const next = { ...current, visualChanges };
    nModified = contentChanged(current, next) ? 1 : 0;
    return next;
  });
  return { nModified };
}

/** `PUT /visual-changesets/{id}`: update a visual changeset. */
export async function putVisualChangeset({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.putVisualChangeset>): UseCaseOutput<typeof contract.putVisualChangeset> {
  if (body.urlPatterns) assertUrlPatterns(body.urlPatterns);
  let nModified = 0;
  const changeset = await visualChangesets.update(auth.orgId, params.id, async (current) => {
    const experiment = await experiments.get(auth.orgId, current.experiment);
    assertCan(auth, contract.putVisualChangeset.permission, experiment.project ? [experiment.project] : []);
    const next = {
      ...current,
      ...(body.editorUrl !== undefined ? { editorUrl: body.editorUrl } : {}),
      ...(body.urlPatterns ? { urlPatterns: body.urlPatterns } : {}),
      ...(body.visualChanges ? { visualChanges: replaceVisualChanges(body.visualChanges, experiment) } : {}),
    };
    nModified = contentChanged(current, next) ? 1 : 0;
    return next;
  });
  return { nModified, visualChangeset: visualChangesetView(changeset) };
}
