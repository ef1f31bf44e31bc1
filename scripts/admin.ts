/**
 * `npm run admin -- <command>`: organizations, members and keys, straight against the table.
 *
 * Where it connects: DYNAMODB_ENDPOINT when set; otherwise real AWS when TABLE_NAME is set (with
 * the usual AWS credentials); otherwise the local table of `npm start` (started here on .data/
 * when `npm start` is not running).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { roles, type Role } from '../shared/permissions';
import { createApiKey, listApiKeys, revokeApiKey } from '../shared/store/api-keys';
import { addMember, members, organizationOfMember } from '../shared/store/members';
import {
  createOrganization,
  findOrganization,
  getSecureAttributeSalt,
  newSecureAttributeSalt,
  setSecureAttributeSalt,
} from '../shared/store/organizations';
import { touchSdkPayloads } from '../shared/payload/write';
import { allOrganizationIds, migratePayloads } from '../shared/payload/migration';
import { storedCatastrophicPatterns } from '../shared/store/condition-patterns';
import { migrateRevisionList } from '../shared/store/feature-revisions';
import { projects } from '../shared/store/projects';
import { deleteLaunchChecklist, getLaunchChecklist, setLaunchChecklist } from '../shared/store/launch-checklists';
import type { ManualTask } from '../shared/domain/start-checklist';

export const usage = `Usage: npm run admin -- <command>

  org create --name N                                    create an organization; prints its id
  member add --org O --email E --name N --role R         add a member; prints its id
  key create --org O --role R [--description D]          create a secret key; prints the secret once
  key list --org O                                       list keys (never their secrets)
  key revoke --org O --id K                              revoke a key by its id (key_...)
  token create --member M [--description D]              personal access token; prints it once
  salt show --org O                                      the secure-attribute salt (SDKs hash secureString values with it)
  salt set --org O [--salt S]                            set it (a new random one without --salt); payloads follow at once
  migrate-payloads [--org O]                             store SDK payloads per feature (every organization, or one); run before upgrading
  migrate-revisions [--org O]                            list revisions stored before GET /revisions existed (every organization, or one)
  check-patterns [--org O]                               list stored conditions whose regular expressions may backtrack catastrophically
  launch-checklist set --org O [--project P] --manual T [--url U] [--manual T2 [--url U2]]...
                                                         the manual tasks required before an experiment starts (of the
                                                         organization, or of one project, which then replaces the
                                                         organization's); each --url belongs to the --manual before it;
                                                         no --manual stores an empty list
  launch-checklist show --org O [--project P]            the stored launch checklist
  launch-checklist delete --org O [--project P]          delete it (a project's experiments then follow the organization's)

Roles: ${roles.join(', ')}`;

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

function options(args: string[], names: string[]) {
  const { values } = parseArgs({
    args,
    options: Object.fromEntries(names.map((name) => [name, { type: 'string' as const }])),
    strict: true,
  });
  return values as Record<string, string | undefined>;
}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name]?.trim();
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function role(value: string): Role {
  if (!(roles as readonly string[]).includes(value)) throw new UsageError(`--role must be one of ${roles.join(', ')}`);
  return value as Role;
}

async function existingOrg(id: string): Promise<string> {
  if (!(await findOrganization(id))) throw new UsageError(`organization ${id} does not exist`);
  return id;
}

/** The organization and (optional) project a launch-checklist command names, both checked to exist. */
async function checklistOwner(values: Record<string, unknown>): Promise<{ orgId: string; projectId: string }> {
  const orgId = await existingOrg(required(values as Record<string, string | undefined>, 'org'));
  const projectId = typeof values.project === 'string' ? values.project.trim() : '';
  if (values.project !== undefined && !projectId) throw new UsageError('--project must not be empty');
  if (projectId && !(await projects.find(orgId, projectId))) throw new UsageError(`project ${projectId} does not exist in ${orgId}`);
  return { orgId, projectId };
}

/** The options of `launch-checklist set` and its manual tasks, in order: each --url belongs to the --manual before it. */
function checklistOptions(args: string[]): { values: Record<string, unknown>; tasks: ManualTask[] } {
  const { values, tokens } = parseArgs({
    args,
    options: { org: { type: 'string' }, project: { type: 'string' }, manual: { type: 'string', multiple: true }, url: { type: 'string', multiple: true } },
    strict: true,
    tokens: true,
  });
  const tasks: ManualTask[] = [];
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const value = token.value?.trim() ?? '';
    if (token.name === 'manual') {
      if (!value) throw new UsageError('--manual must not be empty');
      if (value.length > 256) throw new UsageError('--manual must be at most 256 characters');
      if (tasks.some((task) => task.task === value)) throw new UsageError(`--manual ${value} is given twice`);
      tasks.push({ task: value });
    } else if (token.name === 'url') {
      const last = tasks.at(-1);
      if (!last || last.url !== undefined) throw new UsageError('--url must follow the --manual task it belongs to');
      if (!URL.canParse(value)) throw new UsageError(`--url ${value} is not a URL`);
      last.url = value;
    }
  }
  return { values, tasks };
}

/** Runs one admin command and returns what it prints. */
export async function runAdmin(argv: string[]): Promise<string> {
  if (argv[0] === 'migrate-payloads') {
    const values = options(argv.slice(1), ['org']);
    const orgIds = values.org ? [await existingOrg(values.org)] : await allOrganizationIds();
    const lines: string[] = [];
    // One organization at a time: each writes its entries many at once already.
    for (const orgId of orgIds) {
      const done = await migratePayloads(orgId);
      lines.push(
        `${orgId}: ${done.entriesWritten} entries written, ${done.entriesKept} already there, ${done.formerItemsDeleted} former items deleted` +
          (done.attributeTypesWritten ? ', attribute types written' : ''),
      );
    }
    return [...lines, `${orgIds.length} organizations migrated`].join('\n');
  }
  if (argv[0] === 'migrate-revisions') {
    const values = options(argv.slice(1), ['org']);
    const orgIds = values.org ? [await existingOrg(values.org)] : await allOrganizationIds();
    const lines: string[] = [];
    for (const orgId of orgIds) lines.push(`${orgId}: ${await migrateRevisionList(orgId)} revisions listed`);
    return [...lines, `${orgIds.length} organizations migrated`].join('\n');
  }
  if (argv[0] === 'check-patterns') {
    const values = options(argv.slice(1), ['org']);
    const orgIds = values.org ? [await existingOrg(values.org)] : await allOrganizationIds();
    const lines: string[] = [];
    for (const orgId of orgIds) {
      for (const { item, path, pattern } of await storedCatastrophicPatterns(orgId)) lines.push(`${orgId}\t${item}\t${path}\t${pattern}`);
    }
    return [...lines, `${lines.length} stored conditions with a pattern that may backtrack catastrophically`].join('\n');
  }
  const [noun, verb, ...rest] = argv;
  switch (`${noun} ${verb}`) {
    case 'launch-checklist set': {
      const { values, tasks } = checklistOptions(rest);
      const { orgId, projectId } = await checklistOwner(values);
      await setLaunchChecklist(orgId, projectId, tasks);
      return `${tasks.length} manual tasks set for ${projectId ? `project ${projectId}` : `organization ${orgId}`}`;
    }
    case 'launch-checklist show': {
      const { orgId, projectId } = await checklistOwner(options(rest, ['org', 'project']));
      const checklist = await getLaunchChecklist(orgId, projectId);
      if (!checklist) return `no launch checklist stored for ${projectId ? `project ${projectId}` : `organization ${orgId}`}`;
      return ['task\turl', ...checklist.tasks.map((task) => `${task.task}\t${task.url ?? '-'}`)].join('\n');
    }
    case 'launch-checklist delete': {
      const { orgId, projectId } = await checklistOwner(options(rest, ['org', 'project']));
      const owner = projectId ? `project ${projectId}` : `organization ${orgId}`;
      return (await deleteLaunchChecklist(orgId, projectId)) ? `deleted the launch checklist of ${owner}` : `no launch checklist stored for ${owner}`;
    }
    case 'org create': {
      const values = options(rest, ['name']);
      return (await createOrganization(required(values, 'name'))).id;
    }
    case 'member add': {
      const values = options(rest, ['org', 'email', 'name', 'role']);
      const email = required(values, 'email');
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError('--email must be an e-mail address');
      const member = await addMember(await existingOrg(required(values, 'org')), {
        email,
        name: required(values, 'name'),
        role: role(required(values, 'role')),
        projectRoles: [],
      });
      return member.id;
    }
    case 'key create': {
      const values = options(rest, ['org', 'role', 'description']);
      const { secret } = await createApiKey({
        orgId: await existingOrg(required(values, 'org')),
        role: role(required(values, 'role')),
        description: values.description ?? '',
      });
      return secret;
    }
    case 'key list': {
      const values = options(rest, ['org']);
      const found = await listApiKeys(await existingOrg(required(values, 'org')));
      const rows = found.map((key) =>
        [key.id, key.role, key.memberId ?? '-', key.dateCreated, key.description].join('\t'),
      );
      return ['id\trole\tmember\tcreated\tdescription', ...rows].join('\n');
    }
    case 'key revoke': {
      const values = options(rest, ['org', 'id']);
      await revokeApiKey(await existingOrg(required(values, 'org')), required(values, 'id'));
      return `revoked ${values.id}`;
    }
    case 'token create': {
      const values = options(rest, ['member', 'description']);
      const memberId = required(values, 'member');
      const orgId = await organizationOfMember(memberId);
      if (!orgId || !(await members.find(orgId, memberId))) throw new UsageError(`member ${memberId} does not exist`);
      const { secret } = await createApiKey({
        orgId,
        role: 'user',
        memberId,
        description: values.description ?? 'personal access token',
      });
      return secret;
    }
    case 'salt show': {
      const values = options(rest, ['org']);
      return getSecureAttributeSalt(await existingOrg(required(values, 'org')));
    }
    case 'salt set': {
      const values = options(rest, ['org', 'salt']);
      const orgId = await existingOrg(required(values, 'org'));
      const salt = values.salt ?? newSecureAttributeSalt();
      if (salt.length > 256) throw new UsageError('--salt must be at most 256 characters');
      await setSecureAttributeSalt(orgId, salt);
      // Payloads of connections with hashSecureAttributes now hash with the new salt.
      await touchSdkPayloads(orgId);
      return salt;
    }
    default:
      throw new UsageError(argv.length ? `unknown command: ${argv.slice(0, 2).join(' ')}` : 'no command given');
  }
}

/** Points the store at the right table; starts DynamoDB Local on .data/ when nothing local is running. */
async function connect(): Promise<() => void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (process.env.DYNAMODB_ENDPOINT || process.env.TABLE_NAME) return () => {};
  process.env.TABLE_NAME = 'switchyard';
  const { ensureTable, startDynamoLocal, runningLocalEndpoint } = await import('../infra/local/dynamodb');
  const dataPath = join(__dirname, '..', '.data');
  const running = await runningLocalEndpoint(dataPath);
  if (running) {
    process.env.DYNAMODB_ENDPOINT = running;
    return () => {};
  }
  const dynamo = await startDynamoLocal({ dataPath });
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  await ensureTable(dynamo.endpoint, process.env.TABLE_NAME);
  return dynamo.stop;
}

if (require.main === module) {
  (async () => {
    const stop = await connect();
    try {
      console.log(await runAdmin(process.argv.slice(2)));
    } catch (error) {
      if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
        console.error(`${(error as Error).message}\n\n${usage}`);
        process.exitCode = 2;
      } else {
        console.error((error as Error).message);
        process.exitCode = 1;
      }
    } finally {
      stop();
    }
  })();
}
