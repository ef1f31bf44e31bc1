import * as z from 'zod';
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
  projectRoles: z.array(projectRole).optional(),
  managedBy: z.object({ type: z.literal('vercel'), resourceId: z.string() }).optional(),
  defaultProject: z.string().optional(),
});
export type Team = z.infer<typeof team>;

const id = z.string().min(1).max(256);

/** One role per project: two entries for the same project would make the member's role ambiguous. */
const projectRoles = z
  .array(z.strictObject({ ...projectRole.shape, project: id, environments: stringList, teams: stringList.optional() }))
  .max(1000)
  .superRefine((entries, ctx) => {
    entries.forEach((entry, i) => {
      if (entries.findIndex((other) => other.project === entry.project) !== i) {
        ctx.addIssue({ code: 'custom', path: [i, 'project'], message: `project ${entry.project} already has a role in this list` });
      }
    });
  });

/** The writable fields of a team; `members` are changed through `/teams/{id}/members` only. */
const teamFields = {
  name: z.string().trim().min(1).max(256),
  createdBy: z.string().max(256),
  description: z.string().max(10_000),
  role,
  limitAccessByEnvironment: z.boolean(),
  environments: stringList,
  projectRoles,
  managedBy: z.strictObject({ type: z.literal('vercel'), resourceId: z.string().min(1).max(256) }),
  defaultProject: z.string().max(256),
};

const teamResponse = z.object({ team });
const memberList = z.strictObject({ members: z.array(id).max(1000) });
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
  body: z
    .strictObject(teamFields)
    .partial()
    .required({ name: true, description: true, role: true }),
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
  body: z.strictObject(teamFields).partial(),
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
  query: z.object({ deleteMembers: queryBoolean.optional() }),
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
