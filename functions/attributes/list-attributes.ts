import { endpoint } from '../../shared/api/endpoint';
import { listAttributes } from '../../shared/contracts/attributes';
import * as attributes from '../../shared/use-cases/attributes';

export const handler = endpoint(listAttributes, attributes.listAttributes);
