import { endpoint } from '../../shared/api/endpoint';
import { updateSavedGroup } from '../../shared/contracts/saved-groups';
import * as savedGroups from '../../shared/use-cases/saved-groups';

export const handler = endpoint(updateSavedGroup, savedGroups.updateSavedGroup);
