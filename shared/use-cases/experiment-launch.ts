import * as contract from '../contracts/experiment-launch';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { assertNotHoldout } from '../domain/experiment-status';
import { enhancedStatus } from '../domain/experiments';
import { assertManualKeys, checklistStatus, startChecklist, withTemporaryRollout } from '../domain/start-checklist';
import { assertCan } from '../permissions';
import { changeExperiment } from '../store/experiment-schedule';
import { experiments } from '../store/experiments';
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

/** `POST /experiments/{id}/start-checklist/manual/complete`: mark manual checklist items complete. */
export async function postExperimentStartChecklistManualComplete({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postExperimentStartChecklistManualComplete>): UseCaseOutput<
  typeof contract.postExperimentStartChecklistManualComplete
> {
  const experiment = await experiments.get(auth.orgId, params.id);
  readableOr404(auth, experiment, projectOf(experiment), 'Experiment', params.id);
  assertCan(auth, contract.postExperimentStartChecklistManualComplete.permission, projectOf(experiment));
  assertNotHoldout(experiment);
  const checklistItems = startChecklist(experiment, await checklistFacts(auth.orgId, experiment));
  // With no manual items there is nothing to store: this refuses every key (see assertManualKeys).
  assertManualKeys(checklistItems, body.keys);
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
