import * as contract from '../contracts/settings';
import type { UseCaseInput, UseCaseOutput } from '../contracts/spec';
import { InvalidInputError } from '../errors';
import type { RequireReviewRule, SavedGroupApprovalRule } from '../domain/revision-reviews';
import { environments } from '../store/environments';
import { readOrganizationSettings, writeOrganizationSettings, type OrganizationSettings } from '../store/organizations';
import { unknownProjects } from '../store/projects';
import { teams } from '../store/teams';

/**
 * GrowthBook's defaults for the settings Switchyard does not store (its `genDefaultSettings` and the
 * metric-default resolvers), so `GET /settings` answers every field GrowthBook 5.0.1 requires.
 */
const growthBookDefaults = {
  confidenceLevel: 0.95,
  northStar: null,
  metricDefaults: { maxPercentageChange: 0.5, minPercentageChange: 0.005, minimumSampleSize: 150 },
  pastExperimentsMinLength: 6,
  metricAnalysisDays: 90,
  updateSchedule: null,
  multipleExposureMinPercent: 0.01,
  defaultRole: { role: 'collaborator', limitAccessByEnvironment: false, environments: [] },
  statsEngine: 'bayesian',
  pValueThreshold: 0.05,
  regressionAdjustmentEnabled: false,
  regressionAdjustmentDays: 14,
  sequentialTestingEnabled: false,
  sequentialTestingTuningParameter: 5000,
  attributionModel: 'firstExposure' as const,
  targetMDE: 0.1,
  delayHours: 0,
  windowType: 'conversion',
  windowHours: 72,
  winRisk: 0.0025,
  loseRisk: 0.0125,
  killswitchConfirmation: false,
  featureKeyExample: '',
  featureRegexValidator: '',
  banditScheduleValue: 1,
  banditScheduleUnit: 'days' as const,
  banditBurnInValue: 1,
  banditBurnInUnit: 'days' as const,
  experimentMinLengthDays: 7,
  experimentMaxLengthDays: null,
  preferredEnvironment: null,
};

// The rule fields GrowthBook 5.0.1's `Settings` declares; later fields are answered by `PUT /settings/approvals` only.
const settingsRuleFields = ['requireReviewOn', 'resetReviewOnChange', 'environments', 'projects', 'featureRequireEnvironmentReview', 'featureRequireMetadataReview', 'autopublishOnApproval'];

const pick = <T extends object>(rule: T, fields: readonly string[]) =>
  Object.fromEntries(Object.entries(rule).filter(([key, value]) => fields.includes(key) && value !== undefined)) as T;

/** The settings as GrowthBook 5.0.1 answers them: what is stored, GrowthBook's defaults for the rest. */
function presentSettings(stored: OrganizationSettings) {
  return {
    settings: {
      ...growthBookDefaults,
      secureAttributeSalt: stored.secureAttributeSalt,
      requireReviews: stored.approvals.requireReviews.map((rule) => pick(rule, settingsRuleFields)),
      ...(stored.approvals.restApiBypassesReviews !== undefined ? { restApiBypassesReviews: stored.approvals.restApiBypassesReviews } : {}),
      ...(stored.revertsBypassApproval !== undefined ? { revertsBypassApproval: stored.revertsBypassApproval } : {}),
    },
  };
}

/** `GET /settings`. */
export async function getSettings({ auth }: UseCaseInput<typeof contract.getSettings>): UseCaseOutput<typeof contract.getSettings> {
  return presentSettings(await readOrganizationSettings(auth.orgId));
}

/** `PUT /settings`: the review bypass settings set, or cleared with `null`. */
export async function putSettings({ auth, body }: UseCaseInput<typeof contract.putSettings>): UseCaseOutput<typeof contract.putSettings> {
  await writeOrganizationSettings(auth.orgId, body);
  return presentSettings(await readOrganizationSettings(auth.orgId));
}

/**
 * Refuses rules naming a project, environment or team the organization does not have: such a rule would
 * gate nothing (GrowthBook refuses them too).
 */
async function assertRuleReferences(orgId: string, rules: Array<{ projects?: string[]; environments?: string[]; requiredApproverTeams?: string[] }>) {
  const named = (field: 'projects' | 'environments' | 'requiredApproverTeams') => [...new Set(rules.flatMap((rule) => rule[field] ?? []))];
  const [projectIds, environmentIds, teamIds] = [named('projects'), named('environments'), named('requiredApproverTeams')];
  const [missingProjects, foundEnvironments, foundTeams] = await Promise.all([
    unknownProjects(orgId, projectIds),
    environmentIds.length ? environments.getMany(orgId, environmentIds) : [],
    teamIds.length ? teams.getMany(orgId, teamIds) : [],
  ]);
  if (missingProjects.length) throw new InvalidInputError(`${missingProjects[0]} is not a valid project ID.`);
  const missingEnvironment = environmentIds.find((id) => !foundEnvironments.some((environment) => environment.id === id));
  if (missingEnvironment) throw new InvalidInputError(`${missingEnvironment} is not a valid environment ID.`);
  const missingTeam = teamIds.find((id) => !foundTeams.some((team) => team.id === id));
  if (missingTeam) throw new InvalidInputError(`${missingTeam} is not a valid team ID.`);
}

/**
 * `PUT /settings/approvals`: each family of rules supplied replaces the stored one wholesale; a rule that
 * names no projects is stored as the all-projects rule (`projects: []`), as GrowthBook stores it.
 */
export async function putApprovalSettings({ auth, body }: UseCaseInput<typeof contract.putApprovalSettings>): UseCaseOutput<typeof contract.putApprovalSettings> {
  await assertRuleReferences(auth.orgId, [...(body.requireReviews ?? []), ...(body.approvalFlows?.savedGroups ?? [])]);
  await writeOrganizationSettings(auth.orgId, {
    ...(body.requireReviews ? { requireReviews: body.requireReviews.map((rule): RequireReviewRule => ({ ...rule, projects: rule.projects ?? [] })) } : {}),
    ...(body.approvalFlows ? { approvalFlows: { savedGroups: body.approvalFlows.savedGroups.map((rule): SavedGroupApprovalRule => ({ ...rule })) } } : {}),
  });
  const { approvals } = await readOrganizationSettings(auth.orgId);
  return { requireReviews: approvals.requireReviews, approvalFlows: approvals.approvalFlows };
}
