import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, queryBoolean, stringList } from './common';
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
  projectRoles: z.optional(z.array(projectRole)),
  managedBy: z.optional(z.object({ type: z.literal('vercel'), resourceId: z.string() })),
  defaultProject: z.optional(z.string()),
});
export type Team = z.infer<typeof team>;

const id = z.string().check(z.minLength(1), z.maxLength(256));

/** One role per project: two entries for the same project would make the member's role ambiguous. */
const projectRoles = z
  .array(z.strictObject({ ...projectRole.shape, project: id, environments: stringList, teams: z.optional(stringList) }))
  .check(
    z.maxLength(1000),
    z.superRefine((entries, ctx) => {
      entries.forEach((entry, i) => {
        if (entries.findIndex((other) => other.project === entry.project) !== i) {
          ctx.addIssue({ code: 'custom', path: [i, 'project'], message: `project ${entry.project} already has a role in this list` });
        }
      });
    }),
  );

/** The writable fields of a team; `members` are changed through `/teams/{id}/members` only. */
const teamFields = {
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  createdBy: z.string().check(z.maxLength(256)),
  description: z.string().check(z.maxLength(10_000)),
  role,
  limitAccessByEnvironment: z.boolean(),
  environments: stringList,
  projectRoles,
  managedBy: z.strictObject({ type: z.literal('vercel'), resourceId: z.string().check(z.minLength(1), z.maxLength(256)) }),
  defaultProject: z.string().check(z.maxLength(256)),
};

const teamResponse = z.object({ team });
const memberList = z.strictObject({ members: z.array(id).check(z.maxLength(1000)) });
const statusResponse = z.object({ status: z.number() });

export const listTeams = defineEndpoint({
  operationId: 'listTeams',
  method: 'GET',
  path: '/teams',
  summary: 'List teams',
  tag: 'teams',
  permission: 'read',
  // No filters: an unknown query parameter is refused like on every list.
  query: z.object({}),
  response: z.object({ teams: z.array(team) }),
});

export const createTeam = defineEndpoint({
  operationId: 'createTeam',
  method: 'POST',
  path: '/teams',
  summary: 'Create a team',
  tag: 'teams',
  permission: 'manageTeam',
  body: z.required(z.partial(z.strictObject(teamFields)), { name: true, description: true, role: true }),
  response: teamResponse,
});

export const getTeam = defineEndpoint({
  operationId: 'getTeam',
  method: 'GET',
  path: '/teams/{id}',
  summary: 'Get a team',
  tag: 'teams',
  permission: 'read',
  params: idParams,
  response: teamResponse,
});

export const updateTeam = defineEndpoint({
  operationId: 'updateTeam',
  method: 'PUT',
  path: '/teams/{id}',
  summary: 'Partially update a team',
  tag: 'teams',
  permission: 'manageTeam',
  params: idParams,
  body: z.partial(z.strictObject(teamFields)),
  response: teamResponse,
});

export const deleteTeam = defineEndpoint({
  operationId: 'deleteTeam',
  method: 'DELETE',
  path: '/teams/{id}',
  summary: 'Delete a team',
  tag: 'teams',
  permission: 'manageTeam',
  params: idParams,
  query: z.object({ deleteMembers: z.optional(queryBoolean) }),
  response: deletedResponse,
});

export const addTeamMembers = defineEndpoint({
  operationId: 'addTeamMembers',
  method: 'POST',
  path: '/teams/{id}/members',
  summary: 'Add members to a team',
  tag: 'teams',
  permission: 'manageTeam',
  params: idParams,
  body: memberList,
  response: statusResponse,
});

export const removeTeamMember = defineEndpoint({
  operationId: 'removeTeamMember',
  method: 'DELETE',
  path: '/teams/{id}/members',
  summary: 'Remove members from a team',
  tag: 'teams',
  permission: 'manageTeam',
  params: idParams,
  body: memberList,
  response: statusResponse,
});

export const teamEndpoints = [listTeams, createTeam, getTeam, updateTeam, deleteTeam, addTeamMembers, removeTeamMember];
