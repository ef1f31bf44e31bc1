import type { Attribute } from '../contracts/attributes';
import type { Experiment } from '../contracts/experiments';
import type { FeatureRule, ValueType } from '../contracts/features';
import type { Holdout } from '../contracts/holdouts';
import type { SavedGroup } from '../contracts/saved-groups';
import type { StoredVisualChange } from '../contracts/visual-changesets';

/**
 * The shapes of the SDK payload: what is stored of a feature (`PayloadEntry`), what the translation
 * reads besides (`PayloadReferences`), and what the SDKs are sent (`SdkPayload`). Types only, so every
 * file of the payload can share them without importing one another.
 */

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
  meta?: Array<{ key: string; name?: string; passthrough?: boolean }>;
  /** Explicit hash ranges: of a rollout (`range`), of each variation of an experiment (`ranges`). */
  range?: [number, number];
  ranges?: Array<[number, number]>;
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

/** What the payload reads of a namespace definition (`/namespaces`): its format, and a multiRange one's hash attribute and seed. */
export interface PayloadNamespace {
  id: string;
  format: 'legacy' | 'multiRange';
  hashAttribute?: string;
  seed?: string;
}

/** What the payload reads of a holdout. */
export type PayloadHoldout = Pick<Holdout, 'id' | 'trackingKey' | 'holdoutSize' | 'hashAttribute' | 'stage' | 'archived' | 'environments' | 'projects'>;

/** A variation of an auto experiment: the page changes, or the URL to go to. */
export type AutoExperimentVariation =
  | { css: string; js: string; domMutations: StoredVisualChange['domMutations'] }
  | { urlRedirect: string };

/** One auto experiment as GrowthBook SDKs read it. */
export interface SdkAutoExperiment {
  key: string;
  changeId: string;
  status?: string;
  variations: AutoExperimentVariation[];
  hashVersion?: number;
  hashAttribute?: string;
  fallbackAttribute?: string;
  disableStickyBucketing?: boolean;
  bucketVersion?: number;
  minBucketVersion?: number;
  urlPatterns: Array<{ include?: boolean; type: 'simple' | 'regex'; pattern: string }>;
  weights: number[];
  meta: Array<{ key: string; name?: string }>;
  seed?: string;
  name?: string;
  phase: string;
  force?: number;
  condition?: Condition;
  parentConditions?: ParentCondition[];
  coverage: number;
  namespace?: SdkRule['namespace'];
  filters?: SdkRule['filters'];
  persistQueryString?: true;
  metadata?: SdkRule['metadata'];
}

/** Saved groups, experiments and attributes already read in this request, which `loadPayloadReferences` need not read again. */
export interface KnownReferences {
  savedGroups?: SavedGroup[];
  experiments?: Experiment[];
  attributes?: Array<{ property: string; datatype: string }>;
}
