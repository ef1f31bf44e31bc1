import { endpoint } from '../../shared/api/endpoint';
import { postAttribute } from '../../shared/contracts/attributes';
import * as attributes from '../../shared/use-cases/attributes';

export const handler = endpoint(postAttribute, attributes.postAttribute);
