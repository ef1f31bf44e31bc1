import * as z from 'zod';
import { roles } from '../permissions';
import { defineEndpoint } from './spec';
import { paginationFields, paginationQuery } from './common';

export const role = z.enum(roles);

/** A per-project role, as members and teams carry them. */
export const projectRole = z.object({
  project: z.string().min(1),
  role,
  limitAccessByEnvironment: z.boolean(),
  environments: z.array(z.string()),
  teams: z.array(z.string()).optional(),
});
export type ProjectRole = z.infer<typeof projectRole>;

export const member = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role,
  projectRoles: z.array(projectRole),
  teams: z.array(z.string()),
  dateCreated: z.string(),
  dateUpdated: z.string(),
});
export type Member = z.infer<typeof member>;
/** A member as stored: teams are derived from the teams' member lists when listed. */
export type StoredMember = Omit<Member, 'teams'>;

/** A member as GrowthBook's `GET /members` answers it: the role is `globalRole`. */
export const apiMember = member.omit({ role: true }).extend({
  globalRole: role,
  environments: z.array(z.string()),
  limitAccessByEnvironment: z.boolean(),
  managedbyIdp: z.boolean(),
  lastLoginDate: z.string().optional(),
});
export type ApiMember = z.infer<typeof apiMember>;

export const listMembers = defineEndpoint({
  operationId: 'listMembers',
  method: 'GET',
  path: '/members',
  summary: 'List the members of the organization',
  tag: 'members',
  permission: 'manageTeam',
  query: paginationQuery.extend({
    userName: z.string().max(256).optional(),
    userEmail: z.string().max(320).optional(),
    globalRole: z.string().max(64).optional(),
  }),
  response: z.object({ members: z.array(apiMember) }).extend(paginationFields.shape),
});

export const memberEndpoints = [listMembers];
