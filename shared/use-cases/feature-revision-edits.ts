import * as z from '../contracts/zod';
import * as contract from '../contracts/feature-revision-edits';
import type { PendingRamp, RuleCreateV2, RulePatchV2, RuleSchedule } from '../contracts/feature-revision-edits';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import { ruleInput, type FeatureRule } from '../contracts/features';
import { InvalidInputError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { assertCan, type Principal } from '../permissions';
import { coerceRuleValues, coerceValue, normaliseRules, type StoredFeature } from '../domain/features';
import { assertStatus, openStatuses, withFields, type RevisionFields } from '../domain/revisions';
import { scheduleOf, windowRamp } from '../domain/pending-ramps';
import { describeDiff } from '../domain/revision-diff';
import { environmentIds } from '../store/features';
import { experiments } from '../store/experiments';
import { holdouts } from '../store/holdouts';
import { resolveOwner } from '../store/members';
import { projects } from '../store/projects';
import { scheduleControlling } from '../store/ramp-schedules';
import { readRevision, type StoredRevision } from '../store/feature-revisions';
import {
  assertUnmoved,
  editDraft,
  mergeOf,
  mergeResultOf,
  presentRevisions,
  projectsOf,
  readFeature,
  readRevisionOf,
  type RevisionEdit,
} from './feature-revisions';

const bad = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);
const textOf = (body: { revisionComment?: string; revisionTitle?: string }) => ({ comment: body.revisionComment, title: body.revisionTitle });

// ---- Rules ----

/**
 * A stored rule from a rule in v1's input shape, validated exactly as `POST /features` validates its
 * rules (the same zod schema, ids and defaults, value coercion); 400 naming the field under `rule`.
 */
function validRule(input: Record<string, unknown>, feature: StoredFeature): FeatureRule {
  const parsed = z.safeParse(ruleInput, input);
  if (!parsed.success) {
    throw new InvalidInputError(parsed.error.issues.map((issue) => `Request body: [${['rule', ...issue.path].join('.')}] ${issue.message}`).join('\n'));
  }
  const [rule] = normaliseRules([parsed.data], 'rule', feature.id);
  return coerceRuleValues(feature.valueType, rule!, 'rule');
}

/** 400 for what a v2 rule may carry but Switchyard does not serve: config-backed values, sparse values, safe rollouts. */
function assertServable(rule: { type?: string; config?: string | null; sparse?: boolean; variations?: Array<{ config?: string | null }> }): void {
  if (rule.type === 'safe-rollout') throw bad('rule.type', 'safe-rollout rules are not supported (Switchyard has no safe rollouts); use a rollout rule with a ramp schedule');
  if (rule.config != null) throw bad('rule.config', 'config-backed values are not supported; give the value itself');
  rule.variations?.forEach((variation, i) => {
    if (variation.config != null) throw bad(`rule.variations.${i}.config`, 'config-backed values are not supported; give the value itself');
  });
  if (rule.sparse) throw bad('rule.sparse', 'sparse (partial JSON) values are not supported; give the whole value');
}

/** A v2 targeting rule's type: a force rule with coverage below 1 is a rollout, as GrowthBook treats it. */
const targetingType = (type: string | undefined, coverage: number | undefined) => (type === 'rollout' || (coverage !== undefined && coverage < 1) ? 'rollout' : 'force');

/** GrowthBook's legacy on/off schedule of a rule (experiment-ref rules take `schedule` this way). */
const legacySchedule = (schedule: RuleSchedule) => ({
  scheduleRules: [
    { enabled: true, timestamp: schedule.startDate ?? null },
    { enabled: false, timestamp: schedule.endDate ?? null },
  ],
  scheduleType: 'schedule' as const,
});

/** The v1 input of a new v2 rule (saved groups as `match`/`ids` become `savedGroupTargeting`). */
function v1InputOf(rule: Exclude<RuleCreateV2, { type: 'safe-rollout' }>, id: string): Record<string, unknown> {
  const common = {
    id,
    description: rule.description,
    condition: rule.condition,
    enabled: rule.enabled,
    prerequisites: rule.prerequisites,
    ...(rule.savedGroups ? { savedGroupTargeting: rule.savedGroups.map((group) => ({ matchType: group.match, savedGroups: group.ids })) } : {}),
  };
  if (rule.type === 'experiment-ref') return { ...common, type: 'experiment-ref', experimentId: rule.experimentId, variations: rule.variations };
  const type = targetingType(rule.type, rule.coverage);
  if (type === 'force') return { ...common, type, value: rule.value };
  return { ...common, type, value: rule.value, coverage: rule.coverage ?? 1, hashAttribute: rule.hashAttribute ?? 'id', seed: rule.seed, hashVersion: rule.hashVersion };
}

/**
 * The environments a v2 rule is in: every one with `allEnvironments`, else those `environments`
 * names (each must be one of the organization's); `keep` when neither is given (400 when there is none).
 */
function scopeOf(rule: { allEnvironments?: boolean; environments?: string[] }, environments: string[], keep?: string[]): string[] {
  if (rule.allEnvironments) return environments;
  if (rule.environments !== undefined) {
    rule.environments.forEach((env, i) => {
      if (!environments.includes(env)) throw bad(`rule.environments.${i}`, `${env} is not an environment of this organization (${environments.join(', ')})`);
    });
    if (rule.environments.length) return [...new Set(rule.environments)];
  }
  if (keep) return keep;
  throw bad('rule.allEnvironments', 'give allEnvironments: true, or the environments the rule is in');
}

/** Variation ids left out (all of them) are the experiment's, in order; a mix is refused, as GrowthBook does. */
async function withVariationIds(orgId: string, rule: RuleCreateV2): Promise<RuleCreateV2> {
  if (rule.type !== 'experiment-ref') return rule;
  const missing = rule.variations.filter((variation) => !variation.variationId).length;
  if (missing === 0) return rule;
  if (missing !== rule.variations.length) throw bad('rule.variations', 'Either provide variationId for all variations or none; mixed inputs are not allowed.');
  const [experiment] = await experiments.getMany(orgId, [rule.experimentId]);
  if (!experiment) throw new NotFoundError(`Could not find experiment "${rule.experimentId}"`);
  const variations = experiment.variations ?? [];
  if (variations.length < rule.variations.length) {
    throw bad('rule.variations', `Experiment has ${variations.length} variation(s) but ${rule.variations.length} were specified`);
  }
  return { ...rule, variations: rule.variations.map((variation, i) => ({ ...variation, variationId: variations[i]!.variationId })) };
}

/** The draft with `rule` in `envs` only: replaced where it is, appended where it was not, removed elsewhere. */
function placeRule(fields: RevisionFields, rule: (env: string) => FeatureRule, envs: string[], environments: string[]): RevisionFields {
  const rules = { ...fields.rules };
  for (const env of environments) {
    const list = rules[env] ?? [];
    const at = list.findIndex((candidate) => candidate.id === rule(env).id);
    if (!envs.includes(env)) {
      if (at >= 0) rules[env] = list.filter((_, i) => i !== at);
    } else {
      rules[env] = at >= 0 ? list.map((candidate, i) => (i === at ? rule(env) : candidate)) : [...list, rule(env)];
    }
  }
  return { ...fields, rules };
}

/**
 * The pending-ramp edit of a rule's `rampSchedule` or `schedule` (force and rollout rules: a ramp
 * created on publish; others take `schedule` on the rule itself): checked against the draft as edited,
 * refused when a live ramp schedule already controls the rule. Undefined when the body asks for neither.
 */
function rampEditOf(featureId: string, ruleId: string, ruleType: string, body: { rampSchedule?: contract.InlineRampSchedule; schedule?: RuleSchedule }, orgId: string): RevisionEdit | undefined {
  const windowed = !!(body.schedule?.startDate || body.schedule?.endDate);
  if (body.rampSchedule && windowed) throw bad('rampSchedule', 'rampSchedule and schedule are mutually exclusive. Provide one or the other, not both.');
  const ramps = ruleType === 'force' || ruleType === 'rollout';
  if (body.rampSchedule && !ramps) throw bad('rampSchedule', `rampSchedule is not supported for ${ruleType} rules. Use "schedule" instead.`);
  if (!ramps || !(body.rampSchedule || windowed)) return undefined;
  const pending: PendingRamp = body.rampSchedule ? { ...body.rampSchedule, mode: 'create', ruleId, steps: body.rampSchedule.steps ?? [] } : windowRamp(ruleId, body.schedule!);
  return pendingRampEdit(orgId, featureId, pending);
}

/** Sets `pending` as the draft's ramp for its rule (replacing any), once it fits the draft and no live schedule holds the rule. */
function pendingRampEdit(orgId: string, featureId: string, pending: PendingRamp): RevisionEdit {
  return async (draft, fields, live) => {
    const controlling = await scheduleControlling(orgId, featureId, pending.ruleId);
    if (controlling) {
      throw new InvalidInputError(`Rule "${pending.ruleId}" already has a live ramp schedule. Update it via PUT /api/v1/ramp-schedules/${controlling}.`);
    }
    scheduleOf(withFields(live, fields), pending, { id: 'pending', targetId: 'pending' });
    return { rampActions: [...(draft.rampActions ?? []).filter((ramp) => ramp.ruleId !== pending.ruleId), pending] };
  };
}

/** `POST /v2/features/{id}/revisions/{version}/rules`: a rule appended to the draft, in the environments it names. */
export async function postFeatureRevisionRuleAddV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionRuleAddV2>): UseCaseOutput<typeof contract.postFeatureRevisionRuleAddV2> {
  assertServable(body.rule);
  const input = (await withVariationIds(auth.orgId, body.rule)) as Exclude<RuleCreateV2, { type: 'safe-rollout' }>;
  const id = newId('fr_');
  const type = input.type === 'experiment-ref' ? 'experiment-ref' : targetingType(input.type, input.coverage);
  const windowed = !!(body.schedule?.startDate || body.schedule?.endDate);
  const scheduled = {
    ...v1InputOf(input, id),
    // A rule waiting for its start date is off until its ramp starts it; experiment-ref rules keep GrowthBook's legacy schedule.
    ...(windowed && type !== 'experiment-ref' && body.schedule?.startDate ? { enabled: false } : {}),
    ...(windowed && type === 'experiment-ref' ? legacySchedule(body.schedule!) : {}),
  };
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, live, environments) => {
      const rule = validRule(scheduled, live);
      return placeRule(fields, () => rule, scopeOf(input, environments), environments);
    },
    textOf(body),
    rampEditOf(params.id, id, type, body, auth.orgId),
  );
}

/** The patch fields each rule type has (GrowthBook's legacy `experiment` rules keep a coverage and hash attribute). */
const patchable: Record<FeatureRule['type'], Array<keyof RulePatchV2>> = {
  force: ['value', 'coverage', 'hashAttribute', 'seed', 'hashVersion'],
  rollout: ['value', 'coverage', 'hashAttribute', 'seed', 'hashVersion'],
  experiment: ['coverage', 'hashAttribute'],
  'experiment-ref': ['experimentId', 'variations'],
};
const typed: Array<keyof RulePatchV2> = ['value', 'coverage', 'hashAttribute', 'seed', 'hashVersion', 'experimentId', 'variations', 'controlValue', 'variationValue'];

/** The v1 input of a stored rule with a v2 patch applied; 400 for fields the rule's type does not have. */
function patched(rule: FeatureRule, patch: RulePatchV2): Record<string, unknown> {
  for (const field of typed) {
    if (patch[field] !== undefined && !patchable[rule.type].includes(field)) throw bad(`rule.${field}`, `rule ${rule.id} is a ${rule.type} rule, which has no ${field}`);
  }
  const next: Record<string, unknown> = { ...rule };
  for (const field of ['description', 'enabled', 'condition', 'prerequisites', ...typed] as const) {
    if (patch[field] !== undefined) next[field] = patch[field];
  }
  if (patch.savedGroups) next.savedGroupTargeting = patch.savedGroups.map((group) => ({ matchType: group.match, savedGroups: group.ids }));
  if (rule.type === 'force' && (patch.type === 'rollout' || (patch.coverage !== undefined && patch.coverage < 1))) {
    // A force rule asked to be a rollout (or given a coverage below 1) becomes one, as GrowthBook converts it.
    Object.assign(next, { type: 'rollout', coverage: patch.coverage ?? 1, hashAttribute: patch.hashAttribute ?? 'id' });
  }
  if (rule.type === 'rollout' && patch.type === 'force') {
    // A force rule serves everyone: only a rollout already at full coverage can become one without changing who gets the value.
    if ((patch.coverage ?? rule.coverage) < 1) throw bad('rule.type', `rule ${rule.id} covers less than everyone; a rule with coverage below 1 is a rollout`);
    next.type = 'force';
  }
  return next;
}

/** `PUT /v2/features/{id}/revisions/{version}/rules/{ruleId}`: fields of one rule patched, its environments changed if asked. */
export async function putFeatureRevisionRuleV2({ auth, params, body }: UseCaseInput<typeof contract.putFeatureRevisionRuleV2>): UseCaseOutput<typeof contract.putFeatureRevisionRuleV2> {
  assertServable(body.rule);
  // The rule's type is read from the draft (or, for "new", the live feature), before any draft is made.
  const current = params.version === 'new' ? (await readFeature(auth.orgId, params.id)).entity : undefined;
  const draft = params.version === 'new' ? undefined : await readRevisionOf(auth.orgId, params.id, params.version);
  const rulesNow = current ? Object.values(current.environments).map((settings) => settings.rules) : Object.values(draft?.rules ?? {});
  const found = rulesNow.flat().find((rule) => rule.id === params.ruleId);
  if (!found) throw new NotFoundError(`Rule "${params.ruleId}" not found`);
  const patchType = body.rule.type;
  if (patchType !== undefined && patchType !== found.type && !(['force', 'rollout'].includes(patchType) && ['force', 'rollout'].includes(found.type))) {
    throw bad('rule.type', `The rule type cannot be changed (rule ${params.ruleId} is a ${found.type} rule)`);
  }
  const windowed = !!(body.schedule?.startDate || body.schedule?.endDate);
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, live, environments) => {
      const where = environments.filter((env) => fields.rules[env]?.some((rule) => rule.id === params.ruleId));
      if (!where.length) throw new NotFoundError(`Rule "${params.ruleId}" not found`);
      const first = fields.rules[where[0]!]!.find((rule) => rule.id === params.ruleId)!;
      const patchOf = (rule: FeatureRule) => {
        const next = patched(rule, body.rule);
        if (windowed && rule.type === 'experiment-ref') Object.assign(next, legacySchedule(body.schedule!));
        if (windowed && rule.type !== 'experiment-ref' && body.schedule?.startDate) next.enabled = false;
        if (body.rampSchedule || (windowed && rule.type !== 'experiment-ref')) Object.assign(next, { scheduleRules: [], scheduleType: 'none' });
        return validRule(next, live);
      };
      const byEnv = new Map(where.map((env) => [env, patchOf(fields.rules[env]!.find((rule) => rule.id === params.ruleId)!)]));
      const rule = (env: string) => byEnv.get(env) ?? patchOf(first);
      return placeRule(fields, rule, scopeOf(body.rule, environments, where), environments);
    },
    textOf(body),
    rampEditOf(params.id, params.ruleId, found.type, body, auth.orgId),
  );
}

// ---- Metadata and holdout ----

/**
 * `PUT /v2/features/{id}/revisions/{version}/metadata`: description, owner, project, tags, and the
 * draft's comment and title. Moving the feature to another project needs the caller's rights in both:
 * managing and publishing (where it is on) in the new one, publishing in the old one.
 */
export async function putFeatureRevisionMetadataV2({ auth, params, body }: UseCaseInput<typeof contract.putFeatureRevisionMetadataV2>): UseCaseOutput<typeof contract.putFeatureRevisionMetadataV2> {
  for (const field of ['neverStale', 'customFields', 'jsonSchema'] as const) {
    if (body[field] !== undefined) throw bad(field, `is not kept in revisions; change it with POST /api/v1/features/${params.id}`);
  }
  const live = (await readFeature(auth.orgId, params.id)).entity;
  if (body.project !== undefined && body.project !== live.project) {
    if (body.project && !(await projects.find(auth.orgId, body.project))) throw bad('project', `project ${body.project} does not exist`);
    const environments = await environmentIds(auth.orgId);
    const on = environments.filter((env) => live.environments[env]?.enabled);
    const target = body.project ? [body.project] : [];
    assertCan(auth, 'manageFeatures', target);
    assertCan(auth, 'publishFeatures', projectsOf(live), on);
    assertCan(auth, 'publishFeatures', target, on);
  }
  const owner = body.owner !== undefined ? (await resolveOwner(auth.orgId, body.owner)).owner : undefined;
  const { description, project, tags } = body;
  const changes = Object.fromEntries(Object.entries({ description, owner, project, tags }).filter(([, value]) => value !== undefined));
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields) => ({ ...fields, metadata: { ...fields.metadata, ...changes } }),
    { comment: body.comment, title: body.title },
    async () => ({ ...(body.comment !== undefined ? { comment: body.comment } : {}), ...(body.title !== undefined ? { title: body.title } : {}) }),
  );
}

/** `PUT /v2/features/{id}/revisions/{version}/holdout`: the feature's holdout in the draft (`null` removes it). */
export async function putFeatureRevisionHoldoutV2({ auth, params, body }: UseCaseInput<typeof contract.putFeatureRevisionHoldoutV2>): UseCaseOutput<typeof contract.putFeatureRevisionHoldoutV2> {
  if (body.holdout && !(await holdouts.find(auth.orgId, body.holdout.id))) throw new NotFoundError(`Could not find holdout "${body.holdout.id}"`);
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, live) => ({ ...fields, holdout: body.holdout ? { id: body.holdout.id, value: coerceValue(live.valueType, body.holdout.value, 'holdout.value') } : null }),
    textOf(body),
  );
}

// ---- Diff and rebase preview ----

/** What a diff compares of a revision: its presentation without lifecycle fields (GrowthBook's `revisionToDiffableV2`). */
const lifecycle = ['id', 'featureId', 'baseVersion', 'version', 'comment', 'date', 'status', 'createdBy', 'publishedBy', 'definitions', 'reviews'];
const diffable = (revision: Record<string, unknown>) => Object.fromEntries(Object.entries(revision).filter(([key]) => !lifecycle.includes(key)));

/**
 * `GET /v2/features/{id}/revisions/{version}/diff`: the revision against its base version (default),
 * the live one (`base=live`) or any (`base=<version>`); `minimal` lists what changed, `full` both sides.
 */
export async function getFeatureRevisionDiffV2({ auth, params, query }: UseCaseInput<typeof contract.getFeatureRevisionDiffV2>): UseCaseOutput<typeof contract.getFeatureRevisionDiffV2> {
  const [live, revision, environments] = await Promise.all([
    readFeature(auth.orgId, params.id),
    readRevisionOf(auth.orgId, params.id, params.version),
    environmentIds(auth.orgId),
  ]);
  const base = query.base ?? 'baseVersion';
  const baseVersion = base === 'baseVersion' ? revision.baseVersion : base === 'live' ? live.entity.revision.version : base;
  const before: StoredRevision | undefined = baseVersion === revision.version ? revision : await readRevision(auth.orgId, params.id, baseVersion);
  if (!before) throw new InvalidInputError(`Could not find baseline revision #${baseVersion}`);
  const [from, to] = await presentRevisions(auth.orgId, live.entity, [before, revision], environments);
  const envelope = { name: params.id, type: 'feature' as const, from: before.version, to: revision.version };
  const [a, b] = [diffable(from!), diffable(to!)];
  if (query.format === 'full') return { diff: { ...envelope, before: a, after: b } };
  return { diff: { ...envelope, changes: describeDiff(a, b) } };
}

/**
 * `POST /v2/features/{id}/revisions/{version}/rebase/preview`: the rebase's merge with the given
 * resolutions, every conflict (resolved or not) and, when none is left open, what it changes in the
 * live version; nothing is written.
 */
export async function postFeatureRevisionRebasePreviewV2({ auth, params, body }: UseCaseInput<typeof contract.postFeatureRevisionRebasePreviewV2>): UseCaseOutput<typeof contract.postFeatureRevisionRebasePreviewV2> {
  const [live, draft, environments] = await Promise.all([
    readFeature(auth.orgId, params.id),
    readRevisionOf(auth.orgId, params.id, params.version),
    environmentIds(auth.orgId),
  ]);
  assertCan(auth, 'manageFeatures', projectsOf(live.entity));
  assertStatus(draft.status, openStatuses, 'rebase');
  assertUnmoved(live.entity, draft, body);
  const { liveFields, outcome } = await mergeOf(auth.orgId, live.entity, draft, body.conflictResolutions);
  const common = { liveVersion: live.entity.revision.version, draftDateUpdated: draft.dateUpdated ?? draft.date, conflicts: outcome.conflicts };
  if (!outcome.success) return { success: false, ...common };
  return { success: true, ...common, result: mergeResultOf(liveFields, outcome.merged, environments) };
}

// ---- Ramp schedules of draft rules ----

/**
 * `PUT /v2/features/{id}/revisions/{version}/rules/{ruleId}/ramp-schedule`: a ramp schedule for the
 * rule, pending in the draft (no schedule exists, nothing runs) until the draft is published, when it
 * is created and, unless it waits for a start date or approval, started in the same transaction.
 */
export async function putFeatureRevisionRuleRampScheduleV2({ auth, params, body }: UseCaseInput<typeof contract.putFeatureRevisionRuleRampScheduleV2>): UseCaseOutput<typeof contract.putFeatureRevisionRuleRampScheduleV2> {
  const { environment, startState, revisionTitle, revisionComment, ignoreWarnings: _ignored, ...inline } = body;
  if (startState !== undefined) throw bad('startState', 'is not supported; a rollback returns the rule to its state when the ramp started');
  if (environment !== undefined && !(await environmentIds(auth.orgId)).includes(environment)) throw bad('environment', `Invalid environment: "${environment}"`);
  const pending: PendingRamp = { ...inline, mode: 'create', ruleId: params.ruleId, ...(environment ? { environment } : {}), steps: inline.steps ?? [] };
  const setRamp = pendingRampEdit(auth.orgId, params.id, pending);
  return editDraft(
    auth,
    params.id,
    params.version,
    (fields, _live, environments) => {
      if (!environments.some((env) => fields.rules[env]?.some((rule) => rule.id === params.ruleId && (!environment || env === environment)))) {
        throw new NotFoundError(`Rule "${params.ruleId}" not found${environment ? ` in environment "${environment}"` : ''}`);
      }
      return fields;
    },
    { comment: revisionComment, title: revisionTitle },
    setRamp,
  );
}

/**
 * `DELETE /v2/features/{id}/revisions/{version}/rules/{ruleId}/ramp-schedule`: the rule's pending ramp
 * out of the draft. A live schedule is left alone (eject the rule from it on the ramp-schedule endpoints).
 */
export async function deleteFeatureRevisionRuleRampScheduleV2({ auth, params, body }: UseCaseInput<typeof contract.deleteFeatureRevisionRuleRampScheduleV2>): UseCaseOutput<typeof contract.deleteFeatureRevisionRuleRampScheduleV2> {
  return editDraft(auth, params.id, params.version, (fields) => fields, textOf(body ?? {}), async (draft) => {
    const ramps = draft.rampActions ?? [];
    if (ramps.some((ramp) => ramp.ruleId === params.ruleId)) return { rampActions: ramps.filter((ramp) => ramp.ruleId !== params.ruleId) };
    const controlling = await scheduleControlling(auth.orgId, params.id, params.ruleId);
    if (controlling) {
      throw new InvalidInputError(
        `Rule "${params.ruleId}" has no pending ramp in this draft; detaching its live ramp schedule ${controlling} from a draft is not supported: use POST /api/v1/ramp-schedules/${controlling}/actions/eject-target`,
      );
    }
    throw new NotFoundError(`Rule "${params.ruleId}" has no ramp schedule to remove.`);
  });
}

