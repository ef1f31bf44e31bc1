import * as dirtyJson from 'dirty-json';
import { InvalidInputError } from '../errors';
import type { Principal } from '../permissions';
import type {
  EnvironmentInput,
  Feature,
  FeatureRevisionRecord,
  FeatureRevisionView,
  FeatureRule,
  FeatureUpdate,
  RuleInput,
  ValueType,
} from '../contracts/features';
import { newId } from '../ids';
import { CHECK_BUDGET_MS, compileValueSchema, valueSchemaProblem } from './value-schema';
import { withOwner, type OwnerFields } from './owner';

/** One environment of a stored feature; `defaultValue` and `definition` are derived when it is read. */
export interface EnvironmentSettings {
  enabled: boolean;
  rules: FeatureRule[];
}

/** A feature as stored: the API shape plus the request-only `jsonSchema`, with environments kept lean. */
export type StoredFeature = Omit<Feature, 'environments' | 'prerequisites'> & {
  environments: Record<string, EnvironmentSettings>;
  prerequisites: string[];
  jsonSchema?: string;
  /**
   * The number of the feature's newest revision, draft or published (absent: the live one's). Kept on the
   * feature so a change takes the next number, and a delete finds every revision, without another read.
   */
  newestRevision?: number;
};

/** What a change decides; the store owns `revision` and the dates. */
export type FeatureContent = Omit<StoredFeature, 'revision' | 'dateCreated' | 'dateUpdated'>;

const bad = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** An environment a feature has never been configured in: off, no rules. */
export const defaultSettings = (): EnvironmentSettings => ({ enabled: false, rules: [] });

/**
 * The value a stored value string stands for, or undefined when it is not valid for the type.
 * Booleans and numbers are JSON; a string value is taken as is (as GrowthBook stores it), and a
 * JSON-encoded string literal is unwrapped; json is any JSON text.
 */
export function decodeValue(valueType: ValueType, text: string): { value: unknown } | undefined {
  switch (valueType) {
    case 'boolean': {
      const trimmed = text.trim();
      return trimmed === 'true' ? { value: true } : trimmed === 'false' ? { value: false } : undefined;
    }
    case 'number': {
      const parsed = parseJson(text);
      return parsed && typeof parsed.value === 'number' ? parsed : undefined;
    }
    case 'string': {
      const literal = text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? parseJson(text) : undefined;
      return literal && typeof literal.value === 'string' ? literal : { value: text };
    }
    case 'json':
      return parseJson(text);
  }
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** Every value string of a feature, with the request field that holds it. */
function valuesOf(feature: FeatureContent): Array<[field: string, text: string]> {
  const found: Array<[string, string]> = [['defaultValue', feature.defaultValue]];
  if (feature.holdout) found.push(['holdout.value', feature.holdout.value]);
  for (const [env, settings] of Object.entries(feature.environments)) {
    settings.rules.forEach((rule, i) => {
      const at = `environments.${env}.rules.${i}`;
      if (rule.type === 'force' || rule.type === 'rollout') found.push([`${at}.value`, rule.value]);
      if (rule.type === 'experiment') (rule.value ?? []).forEach((v, j) => found.push([`${at}.values.${j}.value`, v.value]));
      if (rule.type === 'experiment-ref') rule.variations.forEach((v, j) => found.push([`${at}.variations.${j}.value`, v.value]));
    });
  }
  return found;
}

const GROWTHBOOK_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;

/**
 * The longest invalid JSON value dirty-json is asked to repair. Its parser takes time quadratic in the
 * input (measured: 1,000 characters 60 ms, 2,000 190 ms, 8,000 2.3 s, blocking the process), and repairs
 * are for short hand-typed values; longer invalid JSON is refused (GrowthBook sets no bound).
 */
export const MAX_JSON_REPAIR_CHARS = 2000;

/**
 * A value string as GrowthBook coerces it on write: a boolean other than `true`/`false` is `"true"`
 * unless empty; a number must be plain decimal; invalid JSON is repaired (dirty-json, as GrowthBook).
 */
export function coerceValue(valueType: ValueType, text: string, field: string): string {
  switch (valueType) {
    case 'boolean':
      return text === 'true' || text === 'false' ? text : text ? 'true' : 'false';
    case 'number':
      if (!GROWTHBOOK_NUMBER.test(text)) throw bad(field, `Must be a valid number: ${JSON.stringify(text).slice(0, 100)}`);
      return text;
    case 'json':
      if (parseJson(text)) return text;
      if (text.length > MAX_JSON_REPAIR_CHARS) {
        throw bad(field, `is not valid JSON, and only values of at most ${MAX_JSON_REPAIR_CHARS} characters are repaired (this one has ${text.length})`);
      }
      try {
        return JSON.stringify(dirtyJson.parse(text));
      } catch (error) {
        throw bad(field, `is not valid JSON: ${(error as Error).message.slice(0, 200)}`);
      }
    case 'string':
      return text;
  }
}

/** One rule with its value strings coerced as GrowthBook does (see `coerceValue`); `at` is the rule's request field. */
export function coerceRuleValues(type: ValueType, rule: FeatureRule, at: string): FeatureRule {
  if (rule.type === 'force' || rule.type === 'rollout') return { ...rule, value: coerceValue(type, rule.value, `${at}.value`) };
  if (rule.type === 'experiment') {
    return { ...rule, ...(rule.value ? { value: rule.value.map((v, j) => ({ ...v, value: coerceValue(type, v.value, `${at}.values.${j}.value`) })) } : {}) };
  }
  return { ...rule, variations: rule.variations.map((v, j) => ({ ...v, value: coerceValue(type, v.value, `${at}.variations.${j}.value`) })) };
}

/** The feature with every value string coerced as GrowthBook does (see `coerceValue`). */
function coerceValues<F extends FeatureContent>(feature: F): F {
  const type = feature.valueType;
  const environments = Object.fromEntries(
    Object.entries(feature.environments).map(([env, settings]) => {
      const rules = settings.rules.map((rule, i): FeatureRule => coerceRuleValues(type, rule, `environments.${env}.rules.${i}`));
      return [env, { ...settings, rules }];
    }),
  );
  return {
    ...feature,
    defaultValue: coerceValue(type, feature.defaultValue, 'defaultValue'),
    ...(feature.holdout ? { holdout: { ...feature.holdout, value: coerceValue(type, feature.holdout.value, 'holdout.value') } } : {}),
    environments,
  };
}

/**
 * As GrowthBook refuses them: a string or number feature's schema must say the feature's type at its
 * top (`"type": "string"`; `"number"` or `"integer"`), or list only values of that type in a top-level `enum`.
 */
function assertSchemaFitsType(schema: unknown, valueType: 'string' | 'number'): void {
  const top = schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? (schema as Record<string, unknown>) : {};
  const types = valueType === 'number' ? ['number', 'integer'] : ['string'];
  if (top.type === undefined) {
    if (!Array.isArray(top.enum)) throw bad('jsonSchema', `must have a top-level "type" or "enum" for a ${valueType} feature`);
    if (!top.enum.every((option) => typeof option === valueType)) throw bad('jsonSchema', `must list only ${valueType} values in its top-level "enum" for a ${valueType} feature`);
  } else if (!types.includes(top.type as string)) {
    throw bad('jsonSchema', `must have a top-level "type" of ${types.map((type) => `"${type}"`).join(' or ')} for a ${valueType} feature`);
  }
}

/**
 * Refuses any value that is not valid for the feature's type, or that breaks its `jsonSchema`
 * (checked by Ajv, loaded only when the feature has a schema).
 */
export async function assertValuesValid(feature: FeatureContent): Promise<void> {
  let schema: Awaited<ReturnType<typeof compileValueSchema>> | undefined;
  if (feature.jsonSchema !== undefined) {
    // GrowthBook validates string and number values against a schema too; a boolean has nothing to check.
    if (feature.valueType === 'boolean') throw bad('jsonSchema', 'applies to json, string and number features, not boolean');
    schema = await compileValueSchema(feature.jsonSchema);
    if ('problem' in schema) throw bad('jsonSchema', schema.problem);
    if (feature.valueType !== 'json') assertSchemaFitsType(JSON.parse(feature.jsonSchema), feature.valueType);
  }
  // One budget for all the values of the feature, so many rules cannot multiply it.
  const deadline = Date.now() + CHECK_BUDGET_MS;
  for (const [field, text] of valuesOf(feature)) {
    const decoded = decodeValue(feature.valueType, text);
    if (!decoded) throw bad(field, `is not a valid ${feature.valueType} value: ${JSON.stringify(text).slice(0, 100)}`);
    const problem = schema && 'validate' in schema ? valueSchemaProblem(schema.validate, decoded.value, deadline) : undefined;
    if (problem) throw bad(field, problem);
  }
}

const optional = <T extends object>(fields: T) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };

/** Stored rules from request rules: ids (`fr_...`) assigned where missing, defaults filled in. */
export function normaliseRules(inputs: RuleInput[], field: string, featureId: string): FeatureRule[] {
  const seen = new Set<string>();
  return inputs.map((input, i): FeatureRule => {
    const id = input.id ?? newId('fr_');
    if (seen.has(id)) throw bad(`${field}.${i}.id`, `repeats the id ${id} of another rule in this environment`);
    seen.add(id);
    const common = {
      description: input.description ?? '',
      condition: input.condition ?? '',
      id,
      enabled: input.enabled ?? true,
      ...optional({
        scheduleRules: input.scheduleRules,
        scheduleType: input.scheduleType,
        savedGroupTargeting: input.savedGroupTargeting,
        prerequisites: input.prerequisites,
      }),
    };
    switch (input.type) {
      case 'force':
        return { ...common, type: 'force', value: input.value };
      case 'rollout': {
        const { type, value, coverage, hashAttribute, seed, hashVersion } = input;
        return { ...common, type, value, coverage, hashAttribute, ...optional({ seed, hashVersion }) };
      }
      case 'experiment': {
        if (input.values && input.value) throw bad(`${field}.${i}.values`, 'give values or value, not both');
        const values = input.values ?? input.value;
        if (!values) throw bad(`${field}.${i}.values`, 'is required: the variations with their weights');
        return {
          ...common,
          type: 'experiment',
          trackingKey: input.trackingKey ?? featureId,
          hashAttribute: input.hashAttribute ?? 'id',
          ...optional({
            fallbackAttribute: input.fallbackAttribute,
            disableStickyBucketing: input.disableStickyBucketing,
            bucketVersion: input.bucketVersion,
            minBucketVersion: input.minBucketVersion,
            namespace: input.namespace,
          }),
          coverage: input.coverage ?? 1,
          value: values,
        };
      }
      case 'experiment-ref':
        return { ...common, type: 'experiment-ref', experimentId: input.experimentId, variations: input.variations };
    }
  });
}

/**
 * Environments after a change: an environment missing from `input` is untouched; one given
 * without `rules` keeps its rules; one given with `rules` has them replaced.
 */
export function mergeEnvironments(
  current: Record<string, EnvironmentSettings>,
  input: Record<string, EnvironmentInput>,
  known: string[],
  featureId: string,
): Record<string, EnvironmentSettings> {
  const next = { ...current };
  for (const [env, change] of Object.entries(input)) {
    if (!known.includes(env)) throw bad(`environments.${env}`, `is not an environment of this organization (${known.join(', ')})`);
    const before = current[env] ?? defaultSettings();
    next[env] = {
      enabled: change.enabled ?? before.enabled,
      rules: change.rules ? normaliseRules(change.rules, `environments.${env}.rules`, featureId) : before.rules,
    };
  }
  return next;
}

/** The body of a create, as a new feature (without revision and dates, which the store sets). */
export async function newFeature(
  input: {
    id: string;
    valueType: ValueType;
    defaultValue: string;
    archived?: boolean;
    description?: string;
    project?: string;
    tags?: string[];
    environments?: Record<string, EnvironmentInput>;
    prerequisites?: string[];
    jsonSchema?: string;
    customFields?: Record<string, string>;
  },
  context: { environments: string[]; owner: OwnerFields; defaultStates?: Record<string, boolean> },
): Promise<FeatureContent> {
  // As GrowthBook does: an environment the body does not switch starts as its `defaultState` says.
  const blank = Object.fromEntries(
    context.environments.map((env) => [env, { ...defaultSettings(), enabled: context.defaultStates?.[env] ?? false }]),
  );
  const feature: FeatureContent = {
    id: input.id,
    archived: input.archived ?? false,
    description: input.description ?? '',
    ...context.owner,
    project: input.project ?? '',
    valueType: input.valueType,
    defaultValue: input.defaultValue,
    tags: input.tags ?? [],
    environments: mergeEnvironments(blank, input.environments ?? {}, context.environments, input.id),
    prerequisites: input.prerequisites ?? [],
    ...optional({ jsonSchema: input.jsonSchema || undefined, customFields: input.customFields }),
  };
  const coerced = coerceValues(feature);
  await assertValuesValid(coerced);
  return coerced;
}

/** A feature after `POST /features/{id}`: partial, with the merge rules of BEHAVIOR.md. */
export async function applyFeatureUpdate(
  current: StoredFeature,
  body: FeatureUpdate,
  context: { environments: string[]; owner?: OwnerFields },
): Promise<StoredFeature> {
  const { environments, owner: _resolvedByCaller, holdout, jsonSchema, ...plain } = body;
  const next: StoredFeature = withOwner({ ...current, ...optional(plain) }, context.owner);
  if (jsonSchema === '') delete next.jsonSchema;
  else if (jsonSchema !== undefined) next.jsonSchema = jsonSchema;
  if (holdout === null) delete next.holdout;
  else if (holdout) next.holdout = holdout;
  if (environments) next.environments = mergeEnvironments(current.environments, environments, context.environments, current.id);
  const coerced = coerceValues(next);
  await assertValuesValid(coerced);
  return coerced;
}

/** Turns a toggle value of the reference (`true`, `"1"`, `0`, `""`...) into on or off. */
export const toggleOn = (value: boolean | number | string) => value === true || value === 1 || value === 'true' || value === '1';

/** A feature with `enabled` set per environment, as `POST /features/{id}/toggle` asks. */
export function applyToggle(current: StoredFeature, toggles: Record<string, boolean>, known: string[]): StoredFeature {
  const environments = { ...current.environments };
  for (const [env, enabled] of Object.entries(toggles)) {
    if (!known.includes(env)) throw bad(`environments.${env}`, `is not an environment of this organization (${known.join(', ')})`);
    environments[env] = { ...(environments[env] ?? defaultSettings()), enabled };
  }
  return { ...current, environments };
}

/** The ids a feature refers to, each with the first request field that names it. */
export function featureReferences(feature: FeatureContent) {
  const features = new Map<string, string>();
  const savedGroups = new Map<string, string>();
  const experiments = new Map<string, string>();
  const note = (map: Map<string, string>, id: string, field: string) => map.has(id) || map.set(id, field);
  feature.prerequisites.forEach((id, i) => note(features, id, `prerequisites.${i}`));
  for (const [env, settings] of Object.entries(feature.environments)) {
    settings.rules.forEach((rule, i) => {
      const at = `environments.${env}.rules.${i}`;
      rule.prerequisites?.forEach((p, j) => note(features, p.id, `${at}.prerequisites.${j}.id`));
      rule.savedGroupTargeting?.forEach((t, j) => t.savedGroups.forEach((id) => note(savedGroups, id, `${at}.savedGroupTargeting.${j}.savedGroups`)));
      if (rule.type === 'experiment-ref') note(experiments, rule.experimentId, `${at}.experimentId`);
    });
  }
  return { features, savedGroups, experiments };
}

/** The features a feature depends on: its prerequisites and its rules' prerequisites in every environment. */
export const prerequisiteIds = (feature: FeatureContent): string[] => [...featureReferences(feature).features.keys()];

/**
 * A dependency path from `start` back to itself, or undefined when there is none.
 * `dependencies` gives each known feature's prerequisites.
 */
export function findCycle(start: string, dependencies: (id: string) => string[]): string[] | undefined {
  const visited = new Set<string>();
  const walk = (id: string, path: string[]): string[] | undefined => {
    for (const next of dependencies(id)) {
      if (next === start) return [...path, next];
      if (visited.has(next)) continue;
      visited.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

/** Filter values kept on the list index: the project, each environment the feature is served in, and each experiment its rules reference. */
export function featureListTags(feature: Pick<StoredFeature, 'project' | 'archived' | 'environments'>): string[] {
  const served = feature.archived
    ? []
    : Object.entries(feature.environments).filter(([, settings]) => settings.enabled).map(([env]) => `env:${env}`);
  // Experiments that experiment-ref rules name, so an experiment's linked features are one query.
  const linked = new Set(
    Object.values(feature.environments).flatMap((settings) =>
      settings.rules.flatMap((rule) => (rule.type === 'experiment-ref' ? [`experiment:${rule.experimentId}`] : [])),
    ),
  );
  return [`project:${feature.project}`, ...served, ...linked];
}

/** Keys sorted at every level, so two equal values always serialise alike. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]))
        : v;
  return JSON.stringify(sort(value));
}

/** Whether a change leaves the feature as it was (then nothing is written and no revision is made). */
export function sameContent(a: FeatureContent, b: FeatureContent): boolean {
  const content = ({ revision: _r, dateCreated: _c, dateUpdated: _u, newestRevision: _n, ...rest }: Partial<StoredFeature>) => canonicalJson(rest);
  return content(a) === content(b);
}

/**
 * The API shape: one entry per environment of the organization (defaults for environments the
 * feature was never configured in), `definition` where the feature is served, no storage fields.
 */
export function toApiFeature(feature: StoredFeature, environments: string[], definitionOf: (env: string) => string | undefined): Feature {
  const { jsonSchema: _requestOnly, newestRevision: _storageOnly, environments: stored, ...rest } = feature;
  return {
    ...rest,
    environments: Object.fromEntries(
      environments.map((env) => {
        const settings = stored[env] ?? defaultSettings();
        const definition = definitionOf(env);
        return [env, { enabled: settings.enabled, defaultValue: feature.defaultValue, rules: settings.rules, ...(definition ? { definition } : {}) }];
      }),
    ),
  };
}

/** Who a change is recorded as made by: the member of a personal access token, else the API key's record id. */
export const authorOf = (principal: Principal, comment: string) => ({ by: principal.memberId ?? principal.keyId, comment });

/**
 * The feature as a revision would serve it, for that revision's `definitions`: the revision's default
 * value and rules in every environment, each environment counted as on (as GrowthBook builds them).
 */
export function featureAtRevision(current: StoredFeature, revision: FeatureRevisionRecord, environments: string[]): StoredFeature {
  return {
    ...current,
    archived: false,
    defaultValue: revision.defaultValue ?? current.defaultValue,
    environments: Object.fromEntries(environments.map((env) => [env, { enabled: true, rules: revision.rules[env] ?? [] }])),
  };
}

/** A revision as `withRevisions` lists it: rules and the definition built from them for every environment. */
export function toRevisionView(revision: FeatureRevisionRecord, served: Feature, environments: string[]): FeatureRevisionView {
  const { featureId, baseVersion, version, comment, date, status, createdBy, publishedBy, defaultValue } = revision;
  return {
    ...{ featureId, baseVersion, version, comment, date, status },
    ...(createdBy !== undefined ? { createdBy } : {}),
    ...(publishedBy !== undefined && status === 'published' ? { publishedBy } : {}),
    ...(defaultValue !== undefined ? { defaultValue } : {}),
    rules: Object.fromEntries(environments.map((env) => [env, revision.rules[env] ?? []])),
    definitions: Object.fromEntries(
      environments.flatMap((env) => {
        const definition = served.environments[env]?.definition;
        return definition ? [[env, definition]] : [];
      }),
    ),
  };
}

/**
 * The feature with an earlier revision's default value and rules, as GrowthBook reverts: the rules of
 * each environment where that revision had rules; other environments, and every environment's
 * on/off state, stay as they are.
 */
export function revertedFeature(current: StoredFeature, revision: Pick<FeatureRevisionRecord, 'defaultValue' | 'rules'>): StoredFeature {
  const environments = { ...current.environments };
  for (const [env, rules] of Object.entries(revision.rules)) {
    if (rules.length) environments[env] = { ...(environments[env] ?? defaultSettings()), rules };
  }
  return { ...current, defaultValue: revision.defaultValue ?? current.defaultValue, environments };
}

const enabledIn = (feature: FeatureContent | undefined, environments: string[]) =>
  feature ? environments.filter((env) => feature.environments[env]?.enabled) : [];

/**
 * The environments whose SDK payload a change publishes to, for the `publishFeatures` check, as GrowthBook
 * decides: when only environments' rules or on/off states change, those environments; when anything else
 * that SDKs see changes (default value, prerequisites, archiving, ...), every environment the feature is on
 * in, before or after. A create or delete publishes to every environment the feature is on in.
 */
export function publishedEnvironments(before: FeatureContent | undefined, after: FeatureContent | undefined, environments: string[]): string[] {
  const on = [...new Set([...enabledIn(before, environments), ...enabledIn(after, environments)])];
  if (!before || !after) return on;
  const settings = (feature: FeatureContent, env: string) => canonicalJson(feature.environments[env] ?? defaultSettings());
  const changed = environments.filter((env) => settings(before, env) !== settings(after, env));
  const unscoped = ({ environments: _e, ...feature }: FeatureContent) => ({ ...feature, environments: {} });
  return sameContent(unscoped(before), unscoped(after)) ? changed : on;
}
