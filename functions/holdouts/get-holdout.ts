import { endpoint } from '../../shared/api/endpoint';
import { getHoldout } from '../../shared/contracts/holdouts';
import * as holdouts from '../../shared/use-cases/holdouts';

export const handler = endpoint(getHoldout, holdouts.getHoldout);
