import { endpoint } from '../../shared/api/endpoint';
import { listDimensions } from '../../shared/contracts/dimensions';
import * as dimensions from '../../shared/use-cases/dimensions';

export const handler = endpoint(listDimensions, dimensions.listDimensions);
