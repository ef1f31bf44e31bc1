import type { EndpointSpec } from './spec';
import { teamEndpoints } from './teams';
import { attributeEndpoints } from './attributes';
import { archetypeEndpoints } from './archetypes';
import { projectEndpoints } from './projects';
import { environmentEndpoints } from './environments';
import { segmentEndpoints } from './segments';
import { factTableEndpoints } from './fact-tables';
import { factMetricEndpoints } from './fact-metrics';
import { metricAnalysisEndpoints } from './metric-analyses';
import { bulkImportEndpoints } from './bulk-import';
import { experimentEndpoints } from './experiments';
import { experimentStatusEndpoints } from './experiment-status';
import { experimentLaunchEndpoints } from './experiment-launch';
import { experimentResultEndpoints } from './experiment-results';
import { experimentScreenshotEndpoints } from './experiment-screenshots';
import { queryEndpoints } from './queries';
import { metricEndpoints } from './metrics';
import { reportEndpoints } from './reports';
import { informationSchemaEndpoints } from './information-schema';
import { virtualColumnEndpoints } from './fact-table-virtual-columns';
import { getMetricUsage, listMetricExperiments } from './metric-usage';
import { snapshotEndpoints } from './snapshots';
import { visualChangesetEndpoints } from './visual-changesets';
import { urlRedirectEndpoints } from './url-redirects';
import { experimentTemplateEndpoints } from './experiment-templates';
import { dashboardEndpoints } from './dashboards';
import { featureEndpoints } from './features';
import { featureCleanupEndpoints } from './feature-cleanup';
import { featureRevisionEndpoints } from './feature-revisions';
import { featureRevisionEditEndpoints } from './feature-revision-edits';
import { scheduledPublishEndpoints } from './scheduled-publish';
import { releaseEndpoints } from './releases';
import { featureV2Endpoints } from './features-v2';
import { featureRevisionV1Endpoints } from './feature-revisions-v1';
import { sdkConnectionEndpoints } from './sdk-connections';
import { sdkPayloadEndpoints } from './sdk-payload';
import { rampScheduleEndpoints } from './ramp-schedules';
import { rampScheduleOpsEndpoints } from './ramp-schedule-ops';
import { rampScheduleTemplateEndpoints } from './ramp-schedule-templates';
import { rampMonitoringEndpoints } from './ramp-monitoring-endpoints';
import { memberEndpoints } from './members';
import { memberChangeEndpoints } from './member-changes';
import { savedGroupEndpoints } from './saved-groups';
import { savedGroupRevisionEndpoints } from './saved-group-revisions';
import { systemEndpoints } from './system';
import { dataSourceEndpoints } from './data-sources';
import { codeRefEndpoints } from './code-refs';
import { namespaceEndpoints } from './namespaces';
import { dimensionEndpoints } from './dimensions';
import { metricGroupEndpoints } from './metric-groups';
import { customFieldEndpoints } from './custom-fields';
import { holdoutEndpoints } from './holdouts';
import { featureReviewEndpoints } from './feature-reviews';
import { settingsEndpoints } from './settings';

/** One endpoint and the file whose `handler` serves it. */
export interface Route {
  spec: EndpointSpec;
  /** Path from the repository root, e.g. `functions/saved-groups/delete-saved-group.ts`. */
  handler: string;
}

const kebab = (operationId: string) => operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The handler file of every endpoint is `functions/<folder>/<operationId in kebab case>.ts`. */
const inFolder = (folder: string, specs: EndpointSpec[]): Route[] =>
  specs.map((spec) => ({ spec, handler: `functions/${folder}/${kebab(spec.operationId)}.ts` }));

/**
 * Every endpoint of the service. The local server, the CDK stack, the OpenAPI document and the
 * tests read this list, so none of them can drift from the others.
 */
export const routes: Route[] = [
  ...inFolder('system', systemEndpoints),
  ...inFolder('members', memberEndpoints),
  ...inFolder('members', memberChangeEndpoints),
  ...inFolder('saved-groups', savedGroupEndpoints),
  ...inFolder('saved-group-revisions', savedGroupRevisionEndpoints),
  ...inFolder('teams', teamEndpoints),
  ...inFolder('attributes', attributeEndpoints),
  ...inFolder('archetypes', archetypeEndpoints),
  ...inFolder('projects', projectEndpoints),
  ...inFolder('environments', environmentEndpoints),
  ...inFolder('data-sources', dataSourceEndpoints),
  ...inFolder('segments', segmentEndpoints),
  ...inFolder('fact-tables', factTableEndpoints),
  ...inFolder('fact-metrics', factMetricEndpoints),
  ...inFolder('fact-metrics', metricAnalysisEndpoints),
  ...inFolder('bulk-import', bulkImportEndpoints),
  ...inFolder('experiments', experimentEndpoints),
  ...inFolder('experiments', experimentStatusEndpoints),
  ...inFolder('experiments', experimentLaunchEndpoints),
  ...inFolder('experiments', experimentResultEndpoints),
  ...inFolder('experiments', experimentScreenshotEndpoints),
  ...inFolder('queries', queryEndpoints),
  ...inFolder('metrics', [...metricEndpoints, listMetricExperiments]),
  ...inFolder('usage', [getMetricUsage]),
  ...inFolder('reports', reportEndpoints),
  ...inFolder('data-sources', informationSchemaEndpoints),
  ...inFolder('fact-tables', virtualColumnEndpoints),
  ...inFolder('snapshots', snapshotEndpoints),
  ...inFolder('visual-changesets', visualChangesetEndpoints),
  ...inFolder('url-redirects', urlRedirectEndpoints),
  ...inFolder('experiment-templates', experimentTemplateEndpoints),
  ...inFolder('dashboards', dashboardEndpoints),
  ...inFolder('features', featureEndpoints),
  ...inFolder('features', featureCleanupEndpoints),
  ...inFolder('feature-revisions', featureRevisionEndpoints),
  ...inFolder('feature-revisions', featureRevisionEditEndpoints),
  ...inFolder('feature-revisions', scheduledPublishEndpoints),
  ...inFolder('releases', releaseEndpoints),
  ...inFolder('features', featureV2Endpoints),
  ...inFolder('feature-revisions', featureRevisionV1Endpoints),
  ...inFolder('sdk-connections', sdkConnectionEndpoints),
  ...inFolder('sdk-payload', sdkPayloadEndpoints),
  ...inFolder('ramp-schedules', rampScheduleEndpoints),
  ...inFolder('ramp-schedules', rampScheduleOpsEndpoints),
  ...inFolder('ramp-schedule-templates', rampScheduleTemplateEndpoints),
  ...inFolder('ramp-schedules', rampMonitoringEndpoints),
  ...inFolder('code-refs', codeRefEndpoints),
  ...inFolder('namespaces', namespaceEndpoints),
  ...inFolder('dimensions', dimensionEndpoints),
  ...inFolder('metric-groups', metricGroupEndpoints),
  ...inFolder('custom-fields', customFieldEndpoints),
  ...inFolder('holdouts', holdoutEndpoints),
  ...inFolder('feature-revisions', featureReviewEndpoints),
  ...inFolder('settings', settingsEndpoints),
];

/** Answers requests no route matches, with 404 `{"message":"Unknown API endpoint"}`. */
export const unknownRouteHandler = 'functions/system/unknown-route.ts';
