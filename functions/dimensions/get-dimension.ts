import { endpoint } from '../../shared/api/endpoint';
import { getDimension } from '../../shared/contracts/dimensions';
import * as dimensions from '../../shared/use-cases/dimensions';

export const handler = endpoint(getDimension, dimensions.getDimension);
