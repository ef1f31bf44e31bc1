import { endpoint } from '../../shared/api/endpoint';
import { listMembers } from '../../shared/contracts/members';
import * as members from '../../shared/use-cases/members';

export const handler = endpoint(listMembers, members.listMembers);
