import * as z from './zod';
import { defineEndpoint, type EndpointSpec } from './spec';
import { idParams } from './common';
import { rampSchedule } from './ramp-schedules';
import { monitoringConfigInput, rampScheduleStatus, setAutoUpdateBody, setMonitoringModeBody } from './ramp-monitoring';

/*
 * The monitoring operations of ramp schedules, in GrowthBook 5.0.1's shapes: PUT /monitoring and the
 * two mode actions answer the schedule itself (not wrapped), refresh-monitoring answers `{rampSchedule}`.
 */

const tag = 'ramp-schedules';

export const updateRampScheduleMonitoring = defineEndpoint({
  operationId: 'updateRampScheduleMonitoring',
  method: 'PUT',
  path: '/ramp-schedules/{id}/monitoring',
  summary: 'Replace the monitoring configuration of a ramp schedule (data source and metrics are locked once monitoring has started)',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: monitoringConfigInput,
  response: rampSchedule,
});

export const setMonitoringModeRampSchedule = defineEndpoint({
  operationId: 'setMonitoringModeRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/set-monitoring-mode',
  summary: 'Run monitoring snapshots automatically (auto) or only on refresh (manual)',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: setMonitoringModeBody,
  response: rampSchedule,
});

export const setAutoUpdateRampSchedule = defineEndpoint({
  operationId: 'setAutoUpdateRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/set-auto-update',
  summary: 'Deprecated alias of set-monitoring-mode: enabled true is auto, false is manual',
  tag,
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: setAutoUpdateBody,
  response: rampSchedule,
});

export const refreshMonitoringRampSchedule = defineEndpoint({
  operationId: 'refreshMonitoringRampSchedule',
  method: 'POST',
  path: '/ramp-schedules/{id}/actions/refresh-monitoring',
  summary: "Start an analysis snapshot of the current monitored step now; poll /status until snapshotAt moves",
  tag,
  permission: 'runQueries',
  projectScoped: true,
  params: idParams,
  response: z.object({ rampSchedule }),
});

export const getRampScheduleStatus = defineEndpoint({
  operationId: 'getRampScheduleStatus',
  method: 'GET',
  path: '/ramp-schedules/{id}/status',
  summary: "A ramp schedule's step, monitoring state and latest verdict with its health summary",
  tag,
  permission: 'read',
  projectScoped: true,
  params: idParams,
  response: rampScheduleStatus,
});

/** Every monitoring endpoint of ramp schedules. */
export const rampMonitoringEndpoints: EndpointSpec[] = [
  updateRampScheduleMonitoring,
  setMonitoringModeRampSchedule,
  setAutoUpdateRampSchedule,
  refreshMonitoringRampSchedule,
  getRampScheduleStatus,
];
