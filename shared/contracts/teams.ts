import * as z from 'zod';
import { projectRole, role } from './members';

export const team = z.object({
  id: z.string(),
  dateCreated: z.string(),
  dateUpdated: z.string(),
  name: z.string(),
  createdBy: z.string(),
  description: z.string(),
  role,
  limitAccessByEnvironment: z.boolean(),
  environments: z.array(z.string()),
  members: z.array(z.string()),
  managedByIdp: z.boolean(),
  projectRoles: z.array(projectRole).optional(),
  managedBy: z.object({ type: z.literal('vercel'), resourceId: z.string() }).optional(),
  defaultProject: z.string().optional(),
});
export type Team = z.infer<typeof team>;

export const teamEndpoints: import('./spec').EndpointSpec[] = [];
