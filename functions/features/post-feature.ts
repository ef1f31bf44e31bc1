import { endpoint } from '../../shared/api/endpoint';
import { postFeature } from '../../shared/contracts/features';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(postFeature, features.postFeature);
