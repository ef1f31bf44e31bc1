import * as z from './zod';
import { roles } from '../permissions';
import { defineEndpoint } from './spec';
import { paginationFields, paginationQuery } from './common';

export const role = z.enum(roles);

/** A per-project role, as members and teams carry them. */
export const projectRole = z.object({
  project: z.string().check(z.minLength(1)),
  role,
  limitAccessByEnvironment: z.boolean(),
  environments: z.array(z.string()),
  teams: z.optional(z.array(z.string())),
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
export const apiMember = z.extend(z.omit(member, { role: true }), {
  globalRole: role,
  environments: z.array(z.string()),
  limitAccessByEnvironment: z.boolean(),
  managedbyIdp: z.boolean(),
  lastLoginDate: z.optional(z.string()),
});
export type ApiMember = z.infer<typeof apiMember>;

export const listMembers = defineEndpoint({
  operationId: 'listMembers',
  method: 'GET',
  path: '/members',
  summary: 'List the members of the organization',
  tag: 'members',
  permission: 'manageTeam',
  query: z.extend(paginationQuery, {
    userName: z.optional(z.string().check(z.maxLength(256))),
    userEmail: z.optional(z.string().check(z.maxLength(320))),
    globalRole: z.optional(z.string().check(z.maxLength(64))),
  }),
  response: z.extend(z.object({ members: z.array(apiMember) }), paginationFields.shape),
});

export const memberEndpoints = [listMembers];
