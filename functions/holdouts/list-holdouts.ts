import { endpoint } from '../../shared/api/endpoint';
import { listHoldouts } from '../../shared/contracts/holdouts';
import * as holdouts from '../../shared/use-cases/holdouts';

export const handler = endpoint(listHoldouts, holdouts.listHoldouts);
