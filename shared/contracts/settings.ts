import * as z from './zod';
import { defineEndpoint } from './spec';
import { stringList } from './common';

/** The fields every flag approval rule may set; a project rule naming no project is the all-projects rule. */
const requireReviewRuleFields = {
  projects: z.optional(stringList),
  resetReviewOnChange: z.optional(z.boolean()),
  environments: z.optional(stringList),
  featureRequireEnvironmentReview: z.optional(z.boolean()),
  featureRequireMetadataReview: z.optional(z.boolean()),
  blockSelfApproval: z.optional(z.boolean()),
  autopublishOnApproval: z.optional(z.boolean()),
  requiredApproverTeams: z.optional(stringList),
};

/** GrowthBook's `RequireReviewRule` as read (the switch may be absent on old rules). */
export const requireReviewRule = z.strictObject({ requireReviewOn: z.optional(z.boolean()), ...requireReviewRuleFields });
/** GrowthBook's `RequireReviewRuleInput`: a write must state the switch. */
const requireReviewRuleInput = z.strictObject({ requireReviewOn: z.boolean(), ...requireReviewRuleFields });

/** GrowthBook's `SavedGroupApprovalRule`. */
export const savedGroupApprovalRule = z.strictObject({
  required: z.boolean(),
  projects: z.optional(stringList),
  resetReviewOnChange: z.optional(z.boolean()),
  requireMetadataReview: z.optional(z.boolean()),
  blockSelfApproval: z.optional(z.boolean()),
  autopublishOnApproval: z.optional(z.boolean()),
  requiredApproverTeams: z.optional(stringList),
});

const approvalFlows = z.strictObject({ savedGroups: z.array(savedGroupApprovalRule).check(z.maxLength(1000)) });

const nullableNumber = z.nullable(z.number());

/** The organization's settings as GrowthBook 5.0.1 answers them (`Settings`). */
export const settings = z.object({
  confidenceLevel: z.number(),
  northStar: z.nullable(z.object({ title: z.optional(z.string()), metricIds: z.optional(z.array(z.string())) })),
  metricDefaults: z.object({
    minimumSampleSize: z.optional(z.number()),
    maxPercentageChange: z.optional(z.number()),
    minPercentageChange: z.optional(z.number()),
    targetMDE: z.optional(z.number()),
  }),
  pastExperimentsMinLength: z.number(),
  metricAnalysisDays: z.number(),
  updateSchedule: z.nullable(z.object({ type: z.optional(z.enum(['cron', 'never', 'stale'])), cron: z.optional(z.nullable(z.string())), hours: z.optional(nullableNumber) })),
  multipleExposureMinPercent: z.number(),
  defaultRole: z.object({ role: z.optional(z.string()), limitAccessByEnvironment: z.optional(z.boolean()), environments: z.optional(z.array(z.string())) }),
  statsEngine: z.string(),
  pValueThreshold: z.number(),
  regressionAdjustmentEnabled: z.boolean(),
  regressionAdjustmentDays: z.number(),
  sequentialTestingEnabled: z.boolean(),
  sequentialTestingTuningParameter: z.number(),
  attributionModel: z.enum(['firstExposure', 'experimentDuration', 'lookbackOverride']),
  targetMDE: z.number(),
  delayHours: z.number(),
  windowType: z.string(),
  windowHours: z.number(),
  winRisk: z.number(),
  loseRisk: z.number(),
  secureAttributeSalt: z.string(),
  killswitchConfirmation: z.boolean(),
  // The rule fields 5.0.1 declares; later ones are answered by `PUT /settings/approvals`.
  requireReviews: z.array(
    z.object({
      requireReviewOn: z.optional(z.boolean()),
      resetReviewOnChange: z.optional(z.boolean()),
      environments: z.optional(z.array(z.string())),
      projects: z.optional(z.array(z.string())),
      featureRequireEnvironmentReview: z.optional(z.boolean()),
      featureRequireMetadataReview: z.optional(z.boolean()),
      autopublishOnApproval: z.optional(z.boolean()),
    }),
  ),
  restApiBypassesReviews: z.optional(z.boolean()),
  revertsBypassApproval: z.optional(z.boolean()),
  featureKeyExample: z.string(),
  featureRegexValidator: z.string(),
  banditScheduleValue: z.number(),
  banditScheduleUnit: z.enum(['hours', 'days']),
  banditBurnInValue: z.number(),
  banditBurnInUnit: z.enum(['hours', 'days']),
  experimentMinLengthDays: z.number(),
  experimentMaxLengthDays: z.optional(nullableNumber),
  preferredEnvironment: z.optional(z.nullable(z.string())),
});

export const getSettings = defineEndpoint({
  operationId: 'getSettings',
  method: 'GET',
  path: '/settings',
  summary: 'Get organization settings',
  tag: 'settings',
  permission: 'read',
  // No parameters: an unknown one is refused, as on every route.
  query: z.object({}),
  response: z.object({ settings }),
});

/**
 * `PUT /settings`, for the settings Switchyard acts on: the REST API's review bypass and whether a revert
 * bypasses approval. `null` clears a setting back to GrowthBook's default.
 */
export const putSettings = defineEndpoint({
  operationId: 'putSettings',
  method: 'PUT',
  path: '/settings',
  summary: 'Update organization settings',
  tag: 'settings',
  permission: 'organizationSettings',
  body: z.strictObject({
    restApiBypassesReviews: z.optional(z.nullable(z.boolean())),
    revertsBypassApproval: z.optional(z.nullable(z.boolean())),
  }),
  response: z.object({ settings }),
});

export const putApprovalSettings = defineEndpoint({
  operationId: 'putApprovalSettings',
  method: 'PUT',
  path: '/settings/approvals',
  summary:
    'Replace the approval requirements for feature flags, configs and constants, and for saved groups. Each family is replaced wholesale when supplied; omit one to leave it unchanged.',
  tag: 'settings',
  permission: 'organizationSettings',
  body: z.strictObject({
    requireReviews: z.optional(z.array(requireReviewRuleInput).check(z.maxLength(1000))),
    approvalFlows: z.optional(approvalFlows),
  }),
  response: z.object({ requireReviews: z.array(requireReviewRule), approvalFlows }),
});

export const settingsEndpoints = [getSettings, putSettings, putApprovalSettings];
