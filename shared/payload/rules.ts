import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import type { Attribute } from '../contracts/attributes';
import type { FeatureRule, ValueType } from '../contracts/features';
import type { SavedGroup } from '../contracts/saved-groups';
import { decodeValue, type FeatureContent } from '../domain/features';
import type { SdkAutoExperiment } from './auto-experiments';
import { holdoutFeatures, holdoutGateRule, type PayloadHoldout } from './holdouts';

/**
 * What the payload of one environment keeps of a served feature: enough to translate it at read
 * time, when the saved groups and experiments it names are read fresh.
 */
export interface PayloadEntry {
  project: string;
  valueType: ValueType;
  defaultValue: string;
  /** The enabled rules of the environment, in order (scheduled ones included: `now` decides at read time). */
  rules: FeatureRule[];
  prerequisites: string[];
  /** Kept (when not empty) for connections that put them in the feature's `metadata`. */
  tags?: string[];
  customFields?: Record<string, unknown>;
  /** The holdout the feature is assigned to, and the value its held-out users get. */
  holdout?: { id: string; value: string };
}

export type PayloadGroup = Pick<SavedGroup, 'id' | 'type' | 'condition' | 'attributeKey' | 'values'>;

/** The fields of an experiment (reference shape) an `experiment-ref` rule is translated from. */
export interface PayloadExperiment {
  id: string;
  name?: string;
  trackingKey?: string;
  status?: string;
  archived?: boolean;
  hashAttribute?: string;
  fallbackAttribute?: string;
  hashVersion?: number;
  disableStickyBucketing?: boolean;
  bucketVersion?: number;
  minBucketVersion?: number;
  variations?: Array<{ variationId: string; key?: string; name?: string }>;
  phases?: Array<{
    coverage?: number;
    trafficSplit?: Array<{ variationId: string; weight: number }>;
    seed?: string;
    namespace?: { namespaceId?: string; enabled?: boolean; range?: [number, number]; ranges?: Array<[number, number]> };
    targetingCondition?: string;
    savedGroupTargeting?: FeatureRule['savedGroupTargeting'];
    prerequisites?: Array<{ id: string; condition: string }>;
  }>;
  resultSummary?: { releasedVariationId?: string; excludeFromPayload?: boolean };
  project?: string;
  tags?: string[];
  customFields?: Record<string, unknown>;
}

export type AttributeDatatype = Attribute['datatype'];

/** The saved groups, experiments and attribute types the translation may look up. */
export interface PayloadReferences {
  savedGroups: Map<string, PayloadGroup>;
  experiments: Map<string, PayloadExperiment>;
  /** Datatype of each known attribute: list-group values of a `number` attribute are numbers. */
  attributes?: Map<string, AttributeDatatype>;
  /** Set for `savedGroupReferencesEnabled`: list groups stay `$inGroup` / `$notInGroup` references, their values sent once in `savedGroups`. */
  groupReferences?: boolean;
  /** The holdouts that hold users out in this payload (live in its environment and projects), by id. */
  holdouts?: Map<string, PayloadHoldout>;
  /** The namespace definitions the rules and phases name, by id: they give a multiRange filter its attribute and seed. */
  namespaces?: Map<string, PayloadNamespace>;
}

/** What an SDK connection (or the REST `definition`, with none of them set) asks of the translation. */
export interface PayloadOptions {
  /** The moment the payload is for: a rule outside its `scheduleRules` window is left out. */
  now: Date;
  includeRuleIds?: boolean;
  includeExperimentNames?: boolean;
  /** Set for `hashSecureAttributes`: strings compared with secure attributes go out as hex sha256(salt + value). */
  secureAttributeSalt?: string;
  /** What the connection puts in feature and experiment `metadata`; `projectIds` maps a project to the id to show (its public id). */
  metadata?: {
    includeProjectIdInMetadata?: boolean;
    includeTagsInMetadata?: boolean;
    includeCustomFieldsInMetadata?: boolean;
    allowedCustomFieldsInMetadata?: string[];
    projectIds?: Map<string, string>;
  };
}

/** What GrowthBook's `metadata` holds, as a connection asks for it. */
export interface SdkMetadata {
  projects?: string[];
  tags?: string[];
  customFields?: Record<string, unknown>;
}

export type Condition = Record<string, unknown>;
export interface ParentCondition {
  id: string;
  condition: Condition;
  gate?: true;
}

/** One rule as the GrowthBook SDKs read it. */
export interface SdkRule {
  id?: string;
  condition?: Condition;
  parentConditions?: ParentCondition[];
  force?: unknown;
  variations?: unknown[];
  weights?: number[];
  coverage?: number;
  key?: string;
  hashAttribute?: string;
  fallbackAttribute?: string;
  hashVersion?: number;
  disableStickyBucketing?: boolean;
  bucketVersion?: number;
  minBucketVersion?: number;
  seed?: string;
  namespace?: [string, number, number];
  filters?: Array<{ attribute: string; seed: string; hashVersion: number; ranges: Array<[number, number]> }>;
  meta?: Array<{ key: string; name?: string }>;
  name?: string;
  phase?: string;
  metadata?: SdkMetadata;
}

export interface SdkFeature {
  defaultValue: unknown;
  rules?: SdkRule[];
  metadata?: SdkMetadata;
}

export interface SdkPayload {
  status: 200;
  features: Record<string, SdkFeature>;
  /** Visual-editor and URL-redirect experiments, for connections that include them (see auto-experiments.ts). */
  experiments?: SdkAutoExperiment[];
  dateUpdated: string;
  /** The values of the saved groups the rules reference, by id (connections with `savedGroupReferencesEnabled`). */
  savedGroups?: Record<string, Array<string | number>>;
}

/** What the payload of `environment` keeps of a feature; undefined when it is not served there (archived or off). */
export function payloadEntry(feature: FeatureContent, environment: string): PayloadEntry | undefined {
  const settings = feature.environments[environment];
  if (feature.archived || !settings?.enabled) return undefined;
  return {
    project: feature.project,
    valueType: feature.valueType,
    defaultValue: feature.defaultValue,
    rules: settings.rules.filter((rule) => rule.enabled),
    prerequisites: feature.prerequisites,
    ...(feature.tags.length ? { tags: feature.tags } : {}),
    ...(feature.customFields && Object.keys(feature.customFields).length ? { customFields: feature.customFields } : {}),
    ...(feature.holdout ? { holdout: feature.holdout } : {}),
  };
}

/** The `metadata` a connection asks for, of a feature or an experiment; undefined when empty. */
export function metadataOf(
  entity: { project?: string; tags?: string[]; customFields?: Record<string, unknown> },
  options: PayloadOptions['metadata'],
): SdkMetadata | undefined {
  if (!options) return undefined;
  const metadata: SdkMetadata = {};
  if (options.includeProjectIdInMetadata && entity.project) metadata.projects = [options.projectIds?.get(entity.project) ?? entity.project];
  if (options.includeTagsInMetadata && entity.tags?.length) metadata.tags = entity.tags;
  if (options.includeCustomFieldsInMetadata && options.allowedCustomFieldsInMetadata?.length && entity.customFields) {
    const allowed = options.allowedCustomFieldsInMetadata.filter((field) => entity.customFields![field] !== undefined);
    if (allowed.length) metadata.customFields = Object.fromEntries(allowed.map((field) => [field, entity.customFields![field]]));
  }
  return Object.keys(metadata).length ? metadata : undefined;
}

const parseCondition = (text: string | undefined): Condition | undefined => {
  if (!text || !text.trim()) return undefined;
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length ? parsed : undefined;
  } catch {
    return undefined;
  }
};

/** Calls `visit` with every key and value of a parsed condition, at any depth. */
function walkCondition(node: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(node)) node.forEach((item) => walkCondition(item, visit));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      visit(key, value);
      walkCondition(value, visit);
    }
  }
}

/** Saved-group ids a condition names with `$inGroup`, `$notInGroup` or `$savedGroups`. */
function conditionGroupIds(text: string | undefined, into: Set<string>): void {
  walkCondition(parseCondition(text), (key, value) => {
    if ((key === '$inGroup' || key === '$notInGroup') && typeof value === 'string') into.add(value);
    if (key === '$savedGroups' && Array.isArray(value)) value.forEach((id) => typeof id === 'string' && into.add(id));
  });
}

function targetingGroupIds(targeting: FeatureRule['savedGroupTargeting'], into: Set<string>): void {
  targeting?.forEach(({ savedGroups }) => savedGroups.forEach((id) => into.add(id)));
}

/**
 * The saved groups, experiments and namespaces some entries name, to be read before translating them. Groups
 * and namespaces an experiment's phase names are only known once the experiments are read: pass them as `experiments`.
 */
export function payloadReferenceIds(
  entries: PayloadEntry[],
  experiments: Iterable<PayloadExperiment> = [],
): { savedGroups: string[]; experiments: string[]; namespaces: string[] } {
  const groupIds = new Set<string>();
  const experimentIds = new Set<string>();
  const namespaceIds = new Set<string>();
  for (const entry of entries) {
    for (const rule of entry.rules) {
      targetingGroupIds(rule.savedGroupTargeting, groupIds);
      conditionGroupIds(rule.condition, groupIds);
      rule.prerequisites?.forEach((p) => conditionGroupIds(p.condition, groupIds));
      if (rule.type === 'experiment-ref') experimentIds.add(rule.experimentId);
      if (rule.type === 'experiment' && rule.namespace?.enabled && rule.namespace.name) namespaceIds.add(rule.namespace.name);
    }
  }
  for (const experiment of experiments) {
    for (const phase of experiment.phases?.slice(-1) ?? []) {
      targetingGroupIds(phase.savedGroupTargeting, groupIds);
      conditionGroupIds(phase.targetingCondition, groupIds);
      phase.prerequisites?.forEach((p) => conditionGroupIds(p.condition, groupIds));
      if (phase.namespace?.enabled && phase.namespace.namespaceId) namespaceIds.add(phase.namespace.namespaceId);
    }
  }
  return { savedGroups: [...groupIds], experiments: [...experimentIds], namespaces: [...namespaceIds] };
}

/** A list group's values, as numbers when its attribute is a number (as GrowthBook sends them). */
export function groupValues(group: PayloadGroup, attributes: PayloadReferences['attributes']): Array<string | number> {
  const values = group.values ?? [];
  return attributes?.get(group.attributeKey ?? 'id') === 'number' ? values.map((value) => parseFloat(value)) : values;
}

/** A group as a condition: a list group is `$inGroup` (resolved by `resolveGroups`), a condition group its condition. */
function groupCondition(group: PayloadGroup): Condition {
  if (group.type === 'list') return { [group.attributeKey ?? 'id']: { $inGroup: group.id } };
  return parseCondition(group.condition) ?? {};
}

function negatedGroupCondition(group: PayloadGroup): Condition {
  if (group.type === 'list') return { [group.attributeKey ?? 'id']: { $notInGroup: group.id } };
  return { $not: parseCondition(group.condition) ?? {} };
}

/**
 * A condition with every saved-group reference resolved against `groups`: `$inGroup` / `$notInGroup`
 * become `$in` / `$nin` of the group's values, `$savedGroups: [ids]` the AND of the groups' conditions.
 * A group that does not exist is an empty group.
 */
function resolveGroups(node: unknown, refs: PayloadReferences): unknown {
  if (Array.isArray(node)) return node.map((item) => resolveGroups(item, refs));
  if (!node || typeof node !== 'object') return node;
  const out: Condition = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === '$inGroup' || key === '$notInGroup') && typeof value === 'string' && refs.groupReferences) {
      out[key] = value;
    } else if ((key === '$inGroup' || key === '$notInGroup') && typeof value === 'string') {
      const group = refs.savedGroups.get(value);
      out[key === '$inGroup' ? '$in' : '$nin'] = group ? groupValues(group, refs.attributes) : [];
    } else if (key === '$savedGroups' && Array.isArray(value)) {
      const conditions = value.map((id) => refs.savedGroups.get(String(id))).map((group) => (group ? resolveGroups(groupCondition(group), refs) : {}));
      out.$and = [...((out.$and as unknown[]) ?? []), ...conditions];
    } else {
      out[key] = resolveGroups(value, refs);
    }
  }
  return out;
}

/** Marks a rule that can match nobody (it targets saved groups that no longer exist). */
export const NEVER = Symbol('never');

/**
 * A rule's condition with its saved groups inlined: `all` is AND, `any` is `$or`, `none` negates
 * each group (a list group becomes `$nin`). A deleted group counts as an empty group: under `all`
 * or `any` (when it is the only one) it matches nobody, so the rule is dropped; under `none` it excludes nobody.
 */
export function inlineCondition(
  condition: string | undefined,
  targeting: FeatureRule['savedGroupTargeting'],
  refs: PayloadReferences,
): Condition | undefined | typeof NEVER {
  const groups = refs.savedGroups;
  const parts: Condition[] = [];
  const own = parseCondition(condition);
  if (own) parts.push(own);
  for (const { matchType, savedGroups } of targeting ?? []) {
    const found = savedGroups.map((id) => groups.get(id)).filter((group): group is PayloadGroup => group !== undefined);
    if (matchType === 'all') {
      if (found.length < savedGroups.length) return NEVER;
      parts.push(...found.map(groupCondition));
    } else if (matchType === 'any') {
      if (found.length === 0) return NEVER;
      parts.push(found.length === 1 ? groupCondition(found[0]) : { $or: found.map(groupCondition) });
    } else {
      parts.push(...found.map(negatedGroupCondition));
    }
  }
  const meaningful = parts.filter((part) => Object.keys(part).length > 0).map((part) => resolveGroups(part, refs) as Condition);
  if (meaningful.length === 0) return undefined;
  return meaningful.length === 1 ? meaningful[0] : { $and: meaningful };
}

/** Prerequisites as the SDKs' `parentConditions`, saved groups resolved. */
export function parentConditions(prerequisites: Array<{ id: string; condition: string }> | undefined, refs: PayloadReferences): ParentCondition[] {
  return (prerequisites ?? []).map(({ id, condition }) => ({ id, condition: (resolveGroups(parseCondition(condition), refs) as Condition) ?? {} }));
}

/**
 * Whether a rule is live at `now` under its schedule, as GrowthBook decides it: before the first
 * dated step the rule is in the opposite state of that step; after each step it is in that step's state.
 */
export function scheduledOn(scheduleRules: FeatureRule['scheduleRules'], now: Date): boolean {
  const steps = (scheduleRules ?? [])
    .filter((step) => step.timestamp)
    .map((step) => ({ at: Date.parse(step.timestamp!), enabled: step.enabled }))
    .filter((step) => !Number.isNaN(step.at))
    .sort((a, b) => a.at - b.at);
  if (steps.length === 0) return true;
  let on = !steps[0].enabled;
  for (const step of steps) {
    if (step.at > now.getTime()) break;
    on = step.enabled;
  }
  return on;
}

/** The dated schedule steps of some entries' rules, as ISO timestamps: the moments their payload changes by itself. */
export function scheduleBoundaries(entries: PayloadEntry[]): string[] {
  const dates = new Set<string>();
  for (const entry of entries) {
    for (const rule of entry.rules) {
      for (const step of rule.scheduleRules ?? []) {
        if (step.timestamp && !Number.isNaN(Date.parse(step.timestamp))) dates.add(new Date(step.timestamp).toISOString());
      }
    }
  }
  return [...dates].sort();
}

/** A weight clamped to [0, 1] and rounded to 4 decimals, as GrowthBook sends weights. */
export const round4 = (weight: number) => Math.round(Math.min(1, Math.max(0, weight)) * 10_000) / 10_000;

/** The object without its undefined fields. */
export const withoutUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/** Hex sha256 of salt + value: how a secure attribute's value is compared without being sent in clear. */
export const hashSecure = (salt: string, value: string) => createHash('sha256').update(salt + value).digest('hex');

/** Whether an attribute type is hashed with `hashSecureAttributes`. */
export const isSecure = (datatype: AttributeDatatype | undefined) => datatype === 'secureString' || datatype === 'secureString[]';

/**
 * A condition with every string compared with a secure attribute hashed, as GrowthBook does it:
 * below a key naming a secure attribute, every string is hashed (except a `$inGroup` group id).
 */
export function hashSecureStrings(node: unknown, salt: string, attributes: Map<string, AttributeDatatype>, hashing = false): unknown {
  if (Array.isArray(node)) return node.map((item) => hashSecureStrings(item, salt, attributes, hashing));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        const here = attributes.has(key) ? isSecure(attributes.get(key)) : hashing;
        const hashed = here && !(key === '$inGroup' || key === '$notInGroup');
        return [key, hashSecureStrings(value, salt, attributes, hashed)];
      }),
    );
  }
  return typeof node === 'string' && hashing ? hashSecure(salt, node) : node;
}

/** What the payload reads of a namespace definition (`/namespaces`): its format, and a multiRange one's hash attribute and seed. */
export interface PayloadNamespace {
  id: string;
  format: 'legacy' | 'multiRange';
  hashAttribute?: string;
  seed?: string;
}

/**
 * A rule's namespace as GrowthBook serves it. The definition, when the organization has it,
 * decides the format: multiRange is a filter hashed on the definition's attribute (else the rule's,
 * else `id`) with the definition's seed (else the namespace id), so rotating the seed reshuffles
 * users; legacy is the `[id, start, end]` tuple of the first range. Without a definition the
 * value's own shape decides.
 */
export function namespaceFields(
  namespace: { name?: string; enabled?: boolean; range?: [number, number]; ranges?: Array<[number, number]> } | undefined,
  hashAttribute: string | undefined,
  definitions?: Map<string, PayloadNamespace>,
): Pick<SdkRule, 'namespace' | 'filters'> {
  if (!namespace?.enabled || !namespace.name) return {};
  const definition = definitions?.get(namespace.name);
  const ranges = namespace.ranges?.length ? namespace.ranges : namespace.range ? [namespace.range] : [];
  const multiRange = definition ? definition.format === 'multiRange' : !!namespace.ranges?.length;
  if (multiRange) {
    const attribute = definition?.hashAttribute || hashAttribute || 'id';
    return { filters: [{ attribute, seed: definition?.seed || namespace.name, hashVersion: 2, ranges }] };
  }
  const [start, end] = ranges[0] ?? [];
  if (start === undefined || end === undefined) return {};
  return { namespace: [namespace.name, start, end] };
}

function experimentRefRule(
  rule: Extract<FeatureRule, { type: 'experiment-ref' }>,
  entry: PayloadEntry,
  refs: PayloadReferences,
  value: (text: string) => unknown,
  options: PayloadOptions,
): SdkRule | undefined {
  const experiment = refs.experiments.get(rule.experimentId);
  if (!experiment || experiment.archived || experiment.status === 'draft' || experiment.resultSummary?.excludeFromPayload) return undefined;
  const valueOf = (variationId: string) =>
    value(rule.variations.find((variation) => variation.variationId === variationId)?.value ?? entry.defaultValue);
  const phaseIndex = (experiment.phases?.length ?? 0) - 1;
  const phase = experiment.phases?.[phaseIndex];
  if (!phase) return undefined;
  const condition = inlineCondition(rule.condition, rule.savedGroupTargeting, refs);
  const phaseCondition = inlineCondition(phase.targetingCondition, phase.savedGroupTargeting, refs);
  if (condition === NEVER || phaseCondition === NEVER) return undefined;
  const conditions = [condition, phaseCondition].filter((c): c is Condition => c !== undefined);
  const parents = [...parentConditions(rule.prerequisites, refs), ...parentConditions(phase.prerequisites, refs)];
  const hashAttribute = experiment.hashAttribute || undefined;
  // Bucketing settings are shared by a running experiment and the release of a stopped one, so
  // released users stay in the same coverage and buckets.
  const common: SdkRule = withoutUndefined({
    ...(options.includeRuleIds ? { id: rule.id } : {}),
    ...(conditions.length ? { condition: conditions.length === 1 ? conditions[0] : { $and: conditions } } : {}),
    ...(parents.length ? { parentConditions: parents } : {}),
    coverage: phase.coverage ?? 1,
    hashAttribute,
    fallbackAttribute: experiment.fallbackAttribute || undefined,
    disableStickyBucketing: experiment.disableStickyBucketing || undefined,
    bucketVersion: experiment.bucketVersion || undefined,
    minBucketVersion: experiment.minBucketVersion || undefined,
    ...namespaceFields(phase.namespace && { ...phase.namespace, name: phase.namespace.namespaceId }, hashAttribute, refs.namespaces),
    seed: phase.seed || undefined,
    hashVersion: experiment.hashVersion,
    metadata: metadataOf(experiment, options.metadata),
  });
  if (experiment.status === 'stopped') {
    // A stopped experiment serves the variation it released, or nothing at all.
    const released = experiment.resultSummary?.releasedVariationId;
    return released ? { ...common, force: valueOf(released) } : undefined;
  }
  const variations = experiment.variations ?? [];
  if (variations.length === 0) return undefined;
  return withoutUndefined({
    ...common,
    variations: variations.map((variation) => valueOf(variation.variationId)),
    weights: variations.map((variation) =>
      round4(phase.trafficSplit?.find((split) => split.variationId === variation.variationId)?.weight ?? 1 / variations.length),
    ),
    key: experiment.trackingKey || experiment.id,
    meta: variations.map((variation, i) =>
      withoutUndefined({ key: variation.key ?? String(i), name: options.includeExperimentNames ? variation.name : undefined }),
    ),
    phase: String(phaseIndex),
    name: options.includeExperimentNames ? experiment.name : undefined,
  });
}

/** One stored rule as the SDK reads it; undefined when it can match nobody or is not live at `options.now`. */
function sdkRule(featureId: string, rule: FeatureRule, entry: PayloadEntry, refs: PayloadReferences, options: PayloadOptions): SdkRule | undefined {
  if (!scheduledOn(rule.scheduleRules, options.now)) return undefined;
  // A 0% rollout serves nobody; dropping it also spares the SDKs' rounding at the edge.
  if (rule.type === 'rollout' && rule.coverage <= 0) return undefined;
  const value = (text: string) => decodeValue(entry.valueType, text)?.value ?? null;
  if (rule.type === 'experiment-ref') return experimentRefRule(rule, entry, refs, value, options);
  const condition = inlineCondition(rule.condition, rule.savedGroupTargeting, refs);
  if (condition === NEVER) return undefined;
  const parents = parentConditions(rule.prerequisites, refs);
  const base: SdkRule = {
    ...(options.includeRuleIds ? { id: rule.id } : {}),
    ...(condition ? { condition } : {}),
    ...(parents.length ? { parentConditions: parents } : {}),
  };
  switch (rule.type) {
    case 'force':
      return { ...base, force: value(rule.value) };
    case 'rollout':
      if (rule.coverage >= 1) return { ...base, force: value(rule.value) };
      // No hashVersion means 1 to the SDKs, as GrowthBook leaves it: a rollout moved over keeps its users.
      return withoutUndefined({
        ...base,
        force: value(rule.value),
        coverage: rule.coverage,
        hashAttribute: rule.hashAttribute || undefined,
        seed: rule.seed || undefined,
        hashVersion: rule.hashVersion,
      });
    case 'experiment': {
      const values = rule.value ?? [];
      return withoutUndefined({
        ...base,
        variations: values.map((v) => value(v.value)),
        weights: values.map((v) => round4(v.weight)),
        coverage: rule.coverage ?? 1,
        key: rule.trackingKey || featureId,
        hashAttribute: rule.hashAttribute || undefined,
        fallbackAttribute: rule.fallbackAttribute || undefined,
        disableStickyBucketing: rule.disableStickyBucketing || undefined,
        bucketVersion: rule.bucketVersion || undefined,
        minBucketVersion: rule.minBucketVersion || undefined,
        ...namespaceFields(rule.namespace, rule.hashAttribute, refs.namespaces),
        meta: values.map((v, i) => withoutUndefined({ key: String(i), name: v.name || undefined })),
      });
    }
  }
}

/**
 * A feature's SDK definition: parsed default value, translated rules (disabled ones, ones outside
 * their schedule and rules that can match nobody dropped; no `rules` when none are left). Feature
 * prerequisites come first, as one gating rule: when a prerequisite feature does not evaluate to true, the feature is off.
 */
export function sdkFeature(featureId: string, entry: PayloadEntry, refs: PayloadReferences, options: PayloadOptions): SdkFeature {
  const rules: SdkRule[] = [];
  if (entry.holdout && refs.holdouts?.has(entry.holdout.id)) {
    const value = decodeValue(entry.valueType, entry.holdout.value)?.value ?? null;
    rules.push(holdoutGateRule(featureId, entry.holdout.id, value, options.includeRuleIds));
  }
  if (entry.prerequisites.length) {
    rules.push({ parentConditions: entry.prerequisites.map((id) => ({ id, condition: { value: true }, gate: true })) });
  }
  for (const rule of entry.rules) {
    const translated = sdkRule(featureId, rule, entry, refs, options);
    if (translated) rules.push(translated);
  }
  const salt = options.secureAttributeSalt;
  const attributes = refs.attributes;
  if (salt !== undefined && attributes && [...attributes.values()].some(isSecure)) {
    for (const rule of rules) if (rule.condition) rule.condition = hashSecureStrings(rule.condition, salt, attributes) as Condition;
  }
  const defaultValue = decodeValue(entry.valueType, entry.defaultValue)?.value ?? null;
  const metadata = metadataOf(entry, options.metadata);
  return { defaultValue, ...(rules.length ? { rules } : {}), ...(metadata ? { metadata } : {}) };
}

/**
 * The body GrowthBook SDKs fetch, for one environment's entries and an SDK connection's projects
 * (none means every project). Features are in id order, so equal content gives an equal body.
 */
export function sdkPayload(
  entries: Record<string, PayloadEntry>,
  options: PayloadOptions & { projects: string[]; refs: PayloadReferences; dateUpdated: string },
): SdkPayload {
  const features: Record<string, SdkFeature> = {};
  for (const id of Object.keys(entries).sort()) {
    const entry = entries[id];
    if (options.projects.length && !options.projects.includes(entry.project)) continue;
    features[id] = sdkFeature(id, entry, options.refs, options);
  }
  if (options.refs.holdouts) Object.assign(features, holdoutFeatures(features, options.refs.holdouts));
  return { status: 200, features, dateUpdated: options.dateUpdated };
}

/** The entries an SDK connection with these projects is served (none means every project). */
export function entriesForProjects(entries: Record<string, PayloadEntry>, projects: string[]): PayloadEntry[] {
  return Object.values(entries).filter((entry) => projects.length === 0 || projects.includes(entry.project));
}

/**
 * A part of the payload (`features`, `savedGroups`) encrypted as GrowthBook SDKs decrypt it with
 * `decryptionKey`: AES-128-CBC under the connection's base64 key, sent as `<base64 iv>.<base64 ciphertext>`.
 */
export function encryptFeatures(features: SdkPayload['features'] | SdkPayload['savedGroups'] | SdkAutoExperiment[], encryptionKey: string): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-cbc', Buffer.from(encryptionKey, 'base64'), iv);
  const encrypted = Buffer.concat([cipher.update(JSON.stringify(features), 'utf8'), cipher.final()]);
  return `${iv.toString('base64')}.${encrypted.toString('base64')}`;
}

/** Whether an `If-None-Match` header names this ETag (a list, weak validators and `*` included). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** Caches may keep the payload but must revalidate (cheaply, with the ETag) before each use: a stale flag is a bug. */
export const sdkPayloadHeaders = {
  'cache-control': 'public, max-age=0, must-revalidate',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
};

/**
 * The HTTP answer for a payload: 304 without a body when the client already has it, otherwise the
 * payload (encrypted when the connection asks). The ETag hashes the clear content, so it changes
 * exactly when the payload does, whatever the random IV of an encryption.
 */
export function sdkPayloadResponse(
  payload: SdkPayload,
  options: { ifNoneMatch?: string; encryptionKey?: string },
): { status: 200 | 304; body?: unknown; headers: Record<string, string> } {
  const hash = createHash('sha256').update(JSON.stringify(payload)).update(options.encryptionKey ? 'encrypted' : 'clear');
  const etag = `"${hash.digest('base64url').slice(0, 32)}"`;
  const headers = { ...sdkPayloadHeaders, etag };
  if (etagMatches(options.ifNoneMatch, etag)) return { status: 304, headers };
  const body = options.encryptionKey
    ? {
        status: 200,
        features: {},
        encryptedFeatures: encryptFeatures(payload.features, options.encryptionKey),
        // As GrowthBook: an encrypted payload's experiments go out encrypted too, behind an empty list.
        ...(payload.experiments ? { experiments: [], encryptedExperiments: encryptFeatures(payload.experiments, options.encryptionKey) } : {}),
        dateUpdated: payload.dateUpdated,
        ...(payload.savedGroups ? { encryptedSavedGroups: encryptFeatures(payload.savedGroups, options.encryptionKey) } : {}),
      }
    : payload;
  return { status: 200, body, headers };
}
