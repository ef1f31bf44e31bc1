import { endpoint } from '../../shared/api/endpoint';
import { revertFeature } from '../../shared/contracts/feature-cleanup';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(revertFeature, features.revertFeature);
