import * as z from 'zod';
import { defineEndpoint } from './spec';
import { idParams } from './common';

export const snapshot = z.object({
  id: z.string(),
  experiment: z.string(),
  status: z.string(),
});

/**
 * A snapshot as stored: what the API shows, plus who asked for it, how, and for which phase and
 * dimension. `error` says why no results will come.
 */
export interface StoredSnapshot {
  id: string;
  experiment: string;
  status: 'running' | 'success' | 'error';
  error?: string;
  triggeredBy: 'manual' | 'schedule';
  /** The API key (`key_...`) that asked for it. */
  triggeredByKeyId: string;
  /** The member, when the key is a personal access token. */
  triggeredByMemberId?: string;
  phase: number;
  dimension?: string;
  dateCreated: string;
  dateUpdated: string;
}

const snapshotResponse = z.object({ snapshot });

export const postExperimentSnapshot = defineEndpoint({
  operationId: 'postExperimentSnapshot',
  method: 'POST',
  path: '/experiments/{id}/snapshot',
  summary: 'Ask for a results snapshot of an experiment',
  tag: 'snapshots',
  permission: 'write',
  projectScoped: true,
  params: idParams,
  body: z.strictObject({
    triggeredBy: z.enum(['manual', 'schedule']).default('manual'),
    // `""` means the overall results, as in GrowthBook.
    dimension: z.string().max(256).optional(),
    phase: z.number().int().min(0).optional(),
  }),
  response: snapshotResponse,
});

export const getExperimentSnapshot = defineEndpoint({
  operationId: 'getExperimentSnapshot',
  method: 'GET',
  path: '/snapshots/{id}',
  summary: 'Get a snapshot by its own id',
  tag: 'snapshots',
  permission: 'read',
  params: idParams,
  response: snapshotResponse,
});

export const snapshotEndpoints = [postExperimentSnapshot, getExperimentSnapshot];
