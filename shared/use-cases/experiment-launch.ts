import * as contract from '../contracts/experiment-launch';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { assertNotHoldout } from '../domain/experiment-status';
import { enhancedStatus } from '../domain/experiments';
import { assertManualKeys, checklistStatus, startChecklist, withCompleted, withTemporaryRollout } from '../domain/start-checklist';
import { assertCan } from '../permissions';
import { changeExperiment } from '../store/experiment-schedule';
import { experiments } from '../store/experiments';
import { changeCompletedTasks } from '../store/launch-checklists';
import { assertMayRun, checklistFacts } from './experiments';
import { projectOf, readableOr404 } from './read-access';

/** `GET /experiments/{id}/start-checklist`: the pre-launch checklist, as POST /start checks it. */
export async function getExperimentStartChecklist({
  params,
  auth,
}: UseCaseInput<typeof contract.getExperimentStartChecklist>): UseCaseOutput<typeof contract.getExperimentStartChecklist> {
  const experiment = await experiments.get(auth.orgId, params.id);
  readableOr404(auth, experiment, projectOf(experiment), 'Experiment', params.id);
  assertNotHoldout(experiment);
  const checklistItems = startChecklist(experiment, await checklistFacts(auth.orgId, experiment));
  return { checklistItems, status: checklistStatus(checklistItems) };
}

/** `POST /experiments/{id}/start-checklist/manual/complete`: mark manual tasks of the launch checklist complete on the experiment. */
export async function postExperimentStartChecklistManualComplete({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postExperimentStartChecklistManualComplete>): UseCaseOutput<
  typeof contract.postExperimentStartChecklistManualComplete
> {
  const { experiment, state } = await changeCompletedTasks(auth.orgId, params.id, (current, launch) => {
    readableOr404(auth, current, projectOf(current), 'Experiment', params.id);
    assertCan(auth, contract.postExperimentStartChecklistManualComplete.permission, projectOf(current));
    assertNotHoldout(current);
    assertManualKeys(launch.manualTasks, body.keys);
    return withCompleted(launch.completedTasks, body.keys);
  });
  const checklistItems = startChecklist(experiment, await checklistFacts(auth.orgId, experiment, state));
  return { checklistItems, status: checklistStatus(checklistItems) };
}

/** `POST /experiments/{id}/modify-temporary-rollout`: turn a stopped experiment's temporary rollout on or off. */
export async function postExperimentModifyTemporaryRollout({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postExperimentModifyTemporaryRollout>): UseCaseOutput<typeof contract.postExperimentModifyTemporaryRollout> {
  const experiment = await changeExperiment(auth.orgId, params.id, async (current) => {
    await assertMayRun(auth, contract.postExperimentModifyTemporaryRollout.permission, current);
    assertNotHoldout(current);
    return withTemporaryRollout(current, body.enableTemporaryRollout, body.releasedVariationId);
  });
  return { experiment: { ...experiment, enhancedStatus: enhancedStatus(experiment) } };
}
