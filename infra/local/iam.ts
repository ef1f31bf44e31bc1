import { AsyncLocalStorage } from 'node:async_hooks';
import { setCallAuthorizer, tableName } from '../../shared/db/client';
import { tableActions, writeDeniedActions, writeDeniedLeadingKeys, type TableAccess } from '../grants';

/**
 * IAM, as far as the table goes, for everything `npm start` and the tests run: DynamoDB Local
 * checks no permission, so a handler calling an action its role lacks would pass every local test
 * and fail in AWS. Each local invocation runs as its function (`asFunction`), and every DynamoDB
 * call it makes is checked against the grant infra/grants.ts decides for that function, the one the
 * CDK role holds; a call outside it throws the AccessDeniedException AWS answers. Calls made outside
 * any function (tests seeding data, the admin CLI with an operator's credentials) are not checked.
 */

interface Caller {
  functionName: string;
  allowed: ReadonlySet<string>;
  /** Whether the role carries the Deny of writes to API keys (writers do). */
  writeDenied: boolean;
}

const callers = new AsyncLocalStorage<Caller>();

/**
 * Runs `run` as a function with `access` (for a deployed handler, `tableAccessOf(handler)`): its
 * DynamoDB calls are held to that grant.
 */
export function asFunction<T>(access: TableAccess, functionName: string, run: () => T): T {
  return callers.run({ functionName, allowed: new Set(tableActions(access)), writeDenied: access === 'read-write' }, run);
}

type Plain = Record<string, unknown>;

/** Each IAM action a call is authorized as, with the partition keys (leading keys) it touches. */
function authorizations(operation: string, input: Plain): { action: string; leadingKeys: unknown[] }[] {
  const key = (value: unknown) => (value as Plain | undefined)?.PK;
  switch (operation) {
    case 'PutItem':
      return [{ action: 'dynamodb:PutItem', leadingKeys: [key(input.Item)] }];
    case 'UpdateItem':
    case 'DeleteItem':
    case 'GetItem':
      return [{ action: `dynamodb:${operation}`, leadingKeys: [key(input.Key)] }];
    case 'BatchWriteItem': {
      const requests = Object.values(input.RequestItems as Record<string, Plain[]>).flat();
      const leadingKeys = requests.map((request) => key((request.PutRequest as Plain)?.Item ?? (request.DeleteRequest as Plain)?.Key));
      return [{ action: 'dynamodb:BatchWriteItem', leadingKeys }];
    }
    case 'TransactWriteItems':
      // No action of its own: each item is authorized as the write it is.
      return (input.TransactItems as Plain[]).map((item) => {
        if (item.Put) return { action: 'dynamodb:PutItem', leadingKeys: [key((item.Put as Plain).Item)] };
        if (item.Update) return { action: 'dynamodb:UpdateItem', leadingKeys: [key((item.Update as Plain).Key)] };
        if (item.Delete) return { action: 'dynamodb:DeleteItem', leadingKeys: [key((item.Delete as Plain).Key)] };
        return { action: 'dynamodb:ConditionCheckItem', leadingKeys: [key((item.ConditionCheck as Plain).Key)] };
      });
    default:
      return [{ action: `dynamodb:${operation}`, leadingKeys: [] }];
  }
}

/** IAM's StringLike: `*` matches any run of characters, `?` one character. */
const like = (pattern: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
const deniedKeys = writeDeniedLeadingKeys.map(like);

/** The error AWS answers a call its role may not make: name, message and status as DynamoDB sends them. */
export function accessDenied(caller: Pick<Caller, 'functionName'>, action: string, resource: string, why: string): Error {
  const error = new Error(
    `User: arn:aws:sts::000000000000:assumed-role/${caller.functionName}-role/${caller.functionName} is not authorized to perform: ${action} on resource: ${resource} ${why}`,
  );
  return Object.assign(error, { name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } });
}

function authorize(operation: string, input: Plain): void {
  const caller = callers.getStore();
  if (!caller) return;
  const tableArn = `arn:aws:dynamodb:${process.env.AWS_REGION ?? 'local'}:000000000000:table/${tableName()}`;
  const resource = typeof input.IndexName === 'string' ? `${tableArn}/index/${input.IndexName}` : tableArn;
  for (const { action, leadingKeys } of authorizations(operation, input)) {
    const denied = caller.writeDenied && writeDeniedActions.includes(action);
    if (denied && leadingKeys.some((leadingKey) => deniedKeys.some((pattern) => pattern.test(String(leadingKey))))) {
      throw accessDenied(caller, action, resource, 'with an explicit deny in an identity-based policy');
    }
    if (!caller.allowed.has(action)) {
      throw accessDenied(caller, action, resource, `because no identity-based policy allows the ${action} action`);
    }
  }
}

setCallAuthorizer(authorize);
