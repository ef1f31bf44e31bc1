import { endpoint } from '../../shared/api/endpoint';
import { updateDimension } from '../../shared/contracts/dimensions';
import * as dimensions from '../../shared/use-cases/dimensions';

export const handler = endpoint(updateDimension, dimensions.updateDimension);
