import * as z from './zod';
import { defineEndpoint } from './spec';
import { deletedResponse, idParams, stringList } from './common';

// Changing a member's roles and removing a member: GrowthBook's updateMemberRole and deleteMember.
// Roles are strings here and checked by the handler, so an unknown role gets a message naming it.

const id = z.string().check(z.minLength(1), z.maxLength(256));

export const updateMemberRole = defineEndpoint({
  operationId: 'updateMemberRole',
  method: 'POST',
  path: '/members/{id}/role',
  summary: "Change a member's global role (and the environments it is limited to) and, optionally, their project roles",
  tag: 'members',
  permission: 'manageTeam',
  params: idParams,
  body: z.strictObject({
    member: z.strictObject({
      role: z.optional(z.string().check(z.maxLength(256))),
      environments: z.optional(stringList),
      projectRoles: z.optional(
        z
          .array(
            z.strictObject({
              project: id,
              role: z.string().check(z.minLength(1), z.maxLength(256)),
              environments: stringList,
              limitAccessByEnvironment: z.optional(z.boolean()),
            }),
          )
          .check(z.maxLength(1000)),
      ),
    }),
  }),
  response: z.object({
    updatedMember: z.object({
      id: z.string(),
      role: z.string(),
      environments: z.array(z.string()),
      limitAccessByEnvironment: z.boolean(),
      projectRoles: z.optional(
        z.array(z.object({ project: z.string(), role: z.string(), limitAccessByEnvironment: z.boolean(), environments: z.array(z.string()) })),
      ),
    }),
  }),
});
export type UpdateMemberRoleBody = z.infer<NonNullable<typeof updateMemberRole.body>>;

export const deleteMember = defineEndpoint({
  operationId: 'deleteMember',
  method: 'DELETE',
  path: '/members/{id}',
  summary: 'Remove a member from the organization (and from its teams)',
  tag: 'members',
  permission: 'manageTeam',
  params: idParams,
  response: deletedResponse,
});

export const memberChangeEndpoints = [updateMemberRole, deleteMember];
