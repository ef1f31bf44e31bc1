import { endpoint } from '../../shared/api/endpoint';
import { putAttribute } from '../../shared/contracts/attributes';
import * as attributes from '../../shared/use-cases/attributes';

export const handler = endpoint(putAttribute, attributes.putAttribute);
