/**
 * GrowthBook 5's step shape (an `interval` time hold, then gates in `holdConditions`) met with
 * Switchyard's stored steps (a trigger: an interval, an approval or a date, and an optional approval
 * hold after the time), without I/O: PUT /steps and ramp templates.
 */
import { InvalidInputError } from '../errors';
import type { CreateRampScheduleBody, RampActionInput, UpdateRampScheduleBody } from '../contracts/ramp-schedules';
import type { RampScheduleTemplate, TemplateEndPatch, TemplateStep } from '../contracts/ramp-schedule-templates';
import type { StepTimingInput } from '../contracts/ramp-schedule-ops';
import { timingOf, updateDefinition } from './ramp-definition';
import type { RampableFeature } from './ramp-rules';
import type { RampScheduleRecord } from './ramp-schedule';

/**
 * PUT /steps: the steps' timing and gates replaced, position by position; each position keeps the
 * actions it had (a new position has none). The rest is PUT's (`updateDefinition`): only while
 * pending, ready or paused (409), and a started schedule keeps the steps up to its current one (400).
 */
export function replaceStepTimings(schedule: RampScheduleRecord, steps: StepTimingInput[], features: RampableFeature[]): RampScheduleRecord {
  const next: NonNullable<UpdateRampScheduleBody['steps']> = steps.map((step, i) => ({
    ...timingOf(step, `Request body: [steps.${i}`),
    actions: schedule.steps[i]?.actions ?? [],
    ...(step.monitored ? { monitored: true } : {}),
    ...(step.approvalNotes !== undefined ? { approvalNotes: step.approvalNotes } : {}),
  }));
  return updateDefinition(schedule, { steps: next }, features);
}

type TemplatePatch = TemplateStep['actions'][number]['patch'] | TemplateEndPatch;

/**
 * A template patch as a ramp action on the schedule's only target (GrowthBook's `remapTemplateActions`:
 * the template's rule id is a placeholder, the target's rule is filled in when the actions are resolved).
 */
function templateAction(patch: TemplatePatch, path: string): RampActionInput {
  const { ruleId: _placeholder, allEnvironments, environments, ...fields } = patch as TemplatePatch & { ruleId?: string };
  if ((allEnvironments ?? null) !== null || (environments ?? null) !== null) {
    throw new InvalidInputError(`${path}] the template patches a rule's environments, which Switchyard's ramp schedules do not change`);
  }
  return { patch: fields };
}

/**
 * What a ramp created from `template` takes from it, as GrowthBook 5's create does: the steps (when
 * the body gives none and names a rule to ramp), the end state as end actions (likewise), the
 * lockdown and the monitoring settings (when the body gives none). 400 naming the template step that a schedule cannot hold.
 */
export function withTemplate(body: CreateRampScheduleBody, template: RampScheduleTemplate): CreateRampScheduleBody {
  const { templateId: _templateId, ...rest } = body;
  const hasTarget = body.featureId !== undefined && body.ruleId !== undefined;
  const at = `Request body: [templateId] template ${template.id}: [steps`;
  const steps =
    body.steps ??
    (hasTarget
      ? template.steps.map((step, i) => ({
          ...timingOf(step, `${at}.${i}`),
          actions: step.actions.map((action, j) => templateAction(action.patch, `${at}.${i}.actions.${j}.patch`)),
          ...(step.monitored ? { monitored: true } : {}),
          ...(step.approvalNotes !== undefined ? { approvalNotes: step.approvalNotes } : {}),
        }))
      : undefined);
  const endPatch = template.endPatch && Object.keys(template.endPatch).length ? template.endPatch : undefined;
  const endActions =
    body.endActions ?? (hasTarget && endPatch ? [templateAction(endPatch, `Request body: [templateId] template ${template.id}: [endPatch`)] : undefined);
  const lockdownConfig = body.lockdownConfig ?? template.lockdownConfig;
  // As GrowthBook's create: the body's, else the template's (with or without a rule to ramp).
  const monitoringConfig = body.monitoringConfig ?? template.monitoringConfig;
  return {
    ...rest,
    ...(steps ? { steps } : {}),
    ...(endActions ? { endActions } : {}),
    ...(lockdownConfig ? { lockdownConfig } : {}),
    ...(monitoringConfig ? { monitoringConfig } : {}),
  };
}
