import { endpoint } from '../../shared/api/endpoint';
import { listCodeRefs } from '../../shared/contracts/code-refs';
import * as codeRefs from '../../shared/use-cases/code-refs';

export const handler = endpoint(listCodeRefs, codeRefs.listCodeRefs);
