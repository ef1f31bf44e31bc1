import { endpoint } from '../../shared/api/endpoint';
import { postDimension } from '../../shared/contracts/dimensions';
import * as dimensions from '../../shared/use-cases/dimensions';

export const handler = endpoint(postDimension, dimensions.postDimension);
