import { endpoint } from '../../shared/api/endpoint';
import { getFeature } from '../../shared/contracts/features';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(getFeature, features.getFeature);
