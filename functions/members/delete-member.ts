import { endpoint } from '../../shared/api/endpoint';
import { deleteMember } from '../../shared/contracts/member-changes';
import * as members from '../../shared/use-cases/members';

export const handler = endpoint(deleteMember, members.deleteMember);
