import { endpoint } from '../../shared/api/endpoint';
import { getFeatureKeys } from '../../shared/contracts/features';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(getFeatureKeys, features.getFeatureKeys);
