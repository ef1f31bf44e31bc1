import { endpoint } from '../../shared/api/endpoint';
import { listFeatures } from '../../shared/contracts/features';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(listFeatures, features.listFeatures);
