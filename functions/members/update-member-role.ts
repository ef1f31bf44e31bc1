import { endpoint } from '../../shared/api/endpoint';
import { updateMemberRole } from '../../shared/contracts/member-changes';
import * as members from '../../shared/use-cases/members';

export const handler = endpoint(updateMemberRole, members.updateMemberRole);
