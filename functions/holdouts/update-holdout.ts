import { endpoint } from '../../shared/api/endpoint';
import { updateHoldout } from '../../shared/contracts/holdouts';
import * as holdouts from '../../shared/use-cases/holdouts';

export const handler = endpoint(updateHoldout, holdouts.updateHoldout);
