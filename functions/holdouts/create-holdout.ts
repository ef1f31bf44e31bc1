import { endpoint } from '../../shared/api/endpoint';
import { createHoldout } from '../../shared/contracts/holdouts';
import * as holdouts from '../../shared/use-cases/holdouts';

export const handler = endpoint(createHoldout, holdouts.createHoldout);
