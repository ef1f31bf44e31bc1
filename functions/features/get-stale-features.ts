import { endpoint } from '../../shared/api/endpoint';
import { getStaleFeatures } from '../../shared/contracts/feature-cleanup';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(getStaleFeatures, features.getStaleFeatures);
