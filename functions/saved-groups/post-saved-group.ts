import { endpoint } from '../../shared/api/endpoint';
import { postSavedGroup } from '../../shared/contracts/saved-groups';
import * as savedGroups from '../../shared/use-cases/saved-groups';

export const handler = endpoint(postSavedGroup, savedGroups.postSavedGroup);
