import { endpoint } from '../../shared/api/endpoint';
import { deleteDimension } from '../../shared/contracts/dimensions';
import * as dimensions from '../../shared/use-cases/dimensions';

export const handler = endpoint(deleteDimension, dimensions.deleteDimension);
