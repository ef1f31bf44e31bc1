import { endpoint } from '../../shared/api/endpoint';
import { setHoldoutStage } from '../../shared/contracts/holdouts';
import * as holdouts from '../../shared/use-cases/holdouts';

export const handler = endpoint(setHoldoutStage, holdouts.setHoldoutStage);
