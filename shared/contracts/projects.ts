import * as z from 'zod';
import type { EndpointSpec } from './spec';

export const project = z.object({
  id: z.string(),
  name: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  description: z.string().optional(),
  publicId: z.string().optional(),
  settings: z
    .object({
      statsEngine: z.string().optional(),
      confidenceLevel: z.number().optional(),
      pValueThreshold: z.number().optional(),
    })
    .optional(),
});
export type Project = z.infer<typeof project>;

export const projectEndpoints: EndpointSpec[] = [];
