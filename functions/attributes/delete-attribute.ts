import { endpoint } from '../../shared/api/endpoint';
import { deleteAttribute } from '../../shared/contracts/attributes';
import * as attributes from '../../shared/use-cases/attributes';

export const handler = endpoint(deleteAttribute, attributes.deleteAttribute);
