import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import type { FeatureRule, ValueType } from '../contracts/features';
import type { SavedGroup } from '../contracts/saved-groups';
import { decodeValue, type FeatureContent } from './features';

/**
 * What the payload of one environment keeps of a served feature: enough to translate it at read
 * time, when the saved groups and experiments it names are read fresh.
 */
export interface PayloadEntry {
  project: string;
  valueType: ValueType;
  defaultValue: string;
  /** The enabled rules of the environment, in order. */
  rules: FeatureRule[];
  prerequisites: string[];
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
    namespace?: { namespaceId?: string; enabled?: boolean; range?: [number, number] };
    targetingCondition?: string;
    savedGroupTargeting?: FeatureRule['savedGroupTargeting'];
    prerequisites?: Array<{ id: string; condition: string }>;
  }>;
  resultSummary?: { releasedVariationId?: string; excludeFromPayload?: boolean };
}

/** The saved groups and experiments the translation may look up. */
export interface PayloadReferences {
  savedGroups: Map<string, PayloadGroup>;
  experiments: Map<string, PayloadExperiment>;
}

type Condition = Record<string, unknown>;
interface ParentCondition {
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
  meta?: Array<{ key: string; name?: string }>;
  name?: string;
  phase?: string;
}

export interface SdkFeature {
  defaultValue: unknown;
  rules?: SdkRule[];
}

export interface SdkPayload {
  status: 200;
  features: Record<string, SdkFeature>;
  dateUpdated: string;
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
  };
}

/** The saved groups and experiments some entries name, to be read before translating them. */
export function payloadReferenceIds(entries: PayloadEntry[]): { savedGroups: string[]; experiments: string[] } {
  const savedGroups = new Set<string>();
  const experiments = new Set<string>();
  for (const entry of entries) {
    for (const rule of entry.rules) {
      rule.savedGroupTargeting?.forEach((targeting) => targeting.savedGroups.forEach((id) => savedGroups.add(id)));
      if (rule.type === 'experiment-ref') experiments.add(rule.experimentId);
    }
  }
  return { savedGroups: [...savedGroups], experiments: [...experiments] };
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

function groupCondition(group: PayloadGroup): Condition {
  if (group.type === 'list') return { [group.attributeKey ?? 'id']: { $in: group.values ?? [] } };
  return parseCondition(group.condition) ?? {};
}

function negatedGroupCondition(group: PayloadGroup): Condition {
  if (group.type === 'list') return { [group.attributeKey ?? 'id']: { $nin: group.values ?? [] } };
  return { $not: parseCondition(group.condition) ?? {} };
}

/** Marks a rule that can match nobody (it targets saved groups that no longer exist). */
const NEVER = Symbol('never');

/**
 * A rule's condition with its saved groups inlined: `all` is AND, `any` is `$or`, `none` negates
 * each group (a list group becomes `$nin`). A deleted group counts as an empty group: under `all`
 * or `any` (when it is the only one) it matches nobody, so the rule is dropped; under `none` it excludes nobody.
 */
function inlineCondition(
  condition: string | undefined,
  targeting: FeatureRule['savedGroupTargeting'],
  groups: Map<string, PayloadGroup>,
): Condition | undefined | typeof NEVER {
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
  const meaningful = parts.filter((part) => Object.keys(part).length > 0);
  if (meaningful.length === 0) return undefined;
  return meaningful.length === 1 ? meaningful[0] : { $and: meaningful };
}

function parentConditions(prerequisites: Array<{ id: string; condition: string }> | undefined): ParentCondition[] {
  return (prerequisites ?? []).map(({ id, condition }) => ({ id, condition: parseCondition(condition) ?? {} }));
}

const round4 = (weight: number) => Math.round(Math.min(1, Math.max(0, weight)) * 10_000) / 10_000;

const withoutUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

function experimentRefRule(
  rule: Extract<FeatureRule, { type: 'experiment-ref' }>,
  entry: PayloadEntry,
  refs: PayloadReferences,
  value: (text: string) => unknown,
): SdkRule | undefined {
  const experiment = refs.experiments.get(rule.experimentId);
  if (!experiment || experiment.archived || experiment.status === 'draft' || experiment.resultSummary?.excludeFromPayload) return undefined;
  const valueOf = (variationId: string) =>
    value(rule.variations.find((variation) => variation.variationId === variationId)?.value ?? entry.defaultValue);
  const phaseIndex = (experiment.phases?.length ?? 0) - 1;
  const phase = experiment.phases?.[phaseIndex];
  const condition = inlineCondition(rule.condition, rule.savedGroupTargeting, refs.savedGroups);
  const phaseCondition = inlineCondition(phase?.targetingCondition, phase?.savedGroupTargeting, refs.savedGroups);
  if (condition === NEVER || phaseCondition === NEVER) return undefined;
  const conditions = [condition, phaseCondition].filter((c): c is Condition => c !== undefined);
  const parents = [...parentConditions(rule.prerequisites), ...parentConditions(phase?.prerequisites)];
  const base: SdkRule = {
    id: rule.id,
    ...(conditions.length ? { condition: conditions.length === 1 ? conditions[0] : { $and: conditions } } : {}),
    ...(parents.length ? { parentConditions: parents } : {}),
  };
  if (experiment.status === 'stopped') {
    // A stopped experiment serves the variation it released to everyone, or nothing at all.
    const released = experiment.resultSummary?.releasedVariationId;
    return released ? { ...base, force: valueOf(released) } : undefined;
  }
  const variations = experiment.variations ?? [];
  if (!phase || variations.length === 0) return undefined;
  const namespace = phase.namespace;
  return withoutUndefined({
    ...base,
    variations: variations.map((variation) => valueOf(variation.variationId)),
    weights: variations.map((variation) =>
      round4(phase.trafficSplit?.find((split) => split.variationId === variation.variationId)?.weight ?? 1 / variations.length),
    ),
    coverage: phase.coverage ?? 1,
    key: experiment.trackingKey || experiment.id,
    hashAttribute: experiment.hashAttribute ?? 'id',
    fallbackAttribute: experiment.fallbackAttribute || undefined,
    hashVersion: experiment.hashVersion,
    disableStickyBucketing: experiment.disableStickyBucketing || undefined,
    bucketVersion: experiment.bucketVersion,
    minBucketVersion: experiment.minBucketVersion,
    seed: phase.seed || undefined,
    namespace:
      namespace?.enabled && namespace.namespaceId && namespace.range
        ? ([namespace.namespaceId, namespace.range[0], namespace.range[1]] as [string, number, number])
        : undefined,
    meta: variations.map((variation, i) => withoutUndefined({ key: variation.key ?? String(i), name: variation.name })),
    name: experiment.name,
    phase: String(phaseIndex),
  });
}

/** One stored rule as the SDK reads it; undefined when it can match nobody. */
function sdkRule(featureId: string, rule: FeatureRule, entry: PayloadEntry, refs: PayloadReferences): SdkRule | undefined {
  const value = (text: string) => decodeValue(entry.valueType, text)?.value ?? null;
  if (rule.type === 'experiment-ref') return experimentRefRule(rule, entry, refs, value);
  const condition = inlineCondition(rule.condition, rule.savedGroupTargeting, refs.savedGroups);
  if (condition === NEVER) return undefined;
  const parents = parentConditions(rule.prerequisites);
  const base: SdkRule = {
    id: rule.id,
    ...(condition ? { condition } : {}),
    ...(parents.length ? { parentConditions: parents } : {}),
  };
  switch (rule.type) {
    case 'force':
      return { ...base, force: value(rule.value) };
    case 'rollout':
      if (rule.coverage >= 1) return { ...base, force: value(rule.value) };
      return {
        ...base,
        force: value(rule.value),
        coverage: rule.coverage,
        hashAttribute: rule.hashAttribute,
        seed: rule.seed || rule.id,
        hashVersion: rule.hashVersion ?? 2,
      };
    case 'experiment': {
      const values = rule.value ?? [];
      const namespace = rule.namespace;
      return withoutUndefined({
        ...base,
        variations: values.map((v) => value(v.value)),
        weights: values.map((v) => round4(v.weight)),
        coverage: rule.coverage ?? 1,
        key: rule.trackingKey || featureId,
        hashAttribute: rule.hashAttribute ?? 'id',
        fallbackAttribute: rule.fallbackAttribute || undefined,
        disableStickyBucketing: rule.disableStickyBucketing || undefined,
        bucketVersion: rule.bucketVersion,
        minBucketVersion: rule.minBucketVersion,
        namespace: namespace?.enabled ? ([namespace.name, namespace.range[0], namespace.range[1]] as [string, number, number]) : undefined,
        meta: values.map((v, i) => withoutUndefined({ key: String(i), name: v.name || undefined })),
      });
    }
  }
}

/**
 * A feature's SDK definition: parsed default value, translated rules (disabled ones and rules that
 * can match nobody dropped; no `rules` when none are left). Feature prerequisites come first, as
 * one gating rule: when a prerequisite feature does not evaluate to true, the feature is off.
 */
export function sdkFeature(featureId: string, entry: PayloadEntry, refs: PayloadReferences): SdkFeature {
  const rules: SdkRule[] = [];
  if (entry.prerequisites.length) {
    rules.push({ parentConditions: entry.prerequisites.map((id) => ({ id, condition: { value: true }, gate: true })) });
  }
  for (const rule of entry.rules) {
    const translated = sdkRule(featureId, rule, entry, refs);
    if (translated) rules.push(translated);
  }
  const defaultValue = decodeValue(entry.valueType, entry.defaultValue)?.value ?? null;
  return rules.length ? { defaultValue, rules } : { defaultValue };
}

/**
 * The body GrowthBook SDKs fetch, for one environment's entries and an SDK connection's projects
 * (none means every project). Features are in id order, so equal content gives an equal body.
 */
export function sdkPayload(
  entries: Record<string, PayloadEntry>,
  options: { projects: string[]; refs: PayloadReferences; dateUpdated: string },
): SdkPayload {
  const features: Record<string, SdkFeature> = {};
  for (const id of Object.keys(entries).sort()) {
    const entry = entries[id];
    if (options.projects.length && !options.projects.includes(entry.project)) continue;
    features[id] = sdkFeature(id, entry, options.refs);
  }
  return { status: 200, features, dateUpdated: options.dateUpdated };
}

/** The entries an SDK connection with these projects is served (none means every project). */
export function entriesForProjects(entries: Record<string, PayloadEntry>, projects: string[]): PayloadEntry[] {
  return Object.values(entries).filter((entry) => projects.length === 0 || projects.includes(entry.project));
}

/**
 * `features` encrypted as GrowthBook SDKs decrypt them with `decryptionKey`: AES-128-CBC under the
 * connection's base64 key, sent as `<base64 iv>.<base64 ciphertext>`.
 */
export function encryptFeatures(features: SdkPayload['features'], encryptionKey: string): string {
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
    ? { status: 200, features: {}, encryptedFeatures: encryptFeatures(payload.features, options.encryptionKey), dateUpdated: payload.dateUpdated }
    : payload;
  return { status: 200, body, headers };
}
