import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApiServer } from '../../infra/local/server';
import { roles, type Role } from '../../shared/permissions';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { createOrganization } from '../../shared/store/organizations';
import { createTestDataSources } from './data-sources';
import { localRunsSettled } from '../../shared/analysis/snapshot-run';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Api {
  baseUrl: string;
  /** A request over HTTP; `key` goes in as Bearer unless `headers` say otherwise. */
  request<T = any>(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/** Starts the local API server (the same handlers Lambda runs) on a free port for one test file. */
export async function startApi(): Promise<Api> {
  const server: Server = await startApiServer({ port: 0 });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = {};
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(options.body);
      }
      const response = await fetch(`${baseUrl}${path}`, { method, headers: { ...headers, ...options.headers }, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: the test sees the raw text
      }
      return { status: response.status, body: parsed as never, headers: response.headers };
    },
    // Snapshot runs go on after their request: the test's environment must outlive them.
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await localRunsSettled();
    },
  };
}

export interface TestOrg {
  orgId: string;
  /** An organization secret key for every role. */
  keys: Record<Role, string>;
  /** A member who is admin, with a personal access token. */
  admin: { memberId: string; email: string; token: string };
}

let counter = 0;

/**
 * A `/api/v1` request that must answer 200: its body. Any other answer throws with the status and
 * body, so a test's setup step that fails names itself.
 */
export async function requestOk(api: Api, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await api.request(method, `/api/v1${path}`, { key, body });
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/**
 * A fresh organization with a key per role and an admin member, so tests never share data; with
 * `dataSources`, also data sources of those ids (see `createTestDataSources`) for the fact tables,
 * experiments and templates the test makes to name.
 */
export async function createTestOrg(name = 'Test org', options: { dataSources?: string[] } = {}): Promise<TestOrg> {
  const organization = await createOrganization(`${name} ${++counter}`);
  await createTestDataSources(organization.id, options.dataSources ?? []);
  const keys = {} as Record<Role, string>;
  for (const role of roles) {
    keys[role] = (await createApiKey({ orgId: organization.id, role, description: `test ${role}` })).secret;
  }
  const email = `admin${counter}-${organization.id}@example.com`;
  const member = await addMember(organization.id, { name: 'Admin', email, role: 'admin', projectRoles: [] });
  const token = (await createApiKey({ orgId: organization.id, role: 'user', memberId: member.id, description: 'test token' })).secret;
  return { orgId: organization.id, keys, admin: { memberId: member.id, email, token } };
}

/**
 * Asserts that `body` has exactly the documented shape: it parses with the endpoint's response
 * schema, and parsing (which drops unknown keys) leaves it unchanged, so nothing extra leaked.
 */
export function expectShape(spec: { response: import('../../shared/contracts/zod').ZodMiniType }, body: unknown): void {
  const parsed = spec.response.safeParse(body);
  if (!parsed.success) throw new Error(`response does not match ${JSON.stringify(parsed.error.issues, null, 2)}`);
  expect(parsed.data).toEqual(body);
}

/**
 * `work` on every item, at most `width` at once, the results in the items' order. Test setups that
 * fire dozens of writes into one organization at once make DynamoDB Local on a loaded machine answer
 * busy (503), which is the service working as meant but not what such a test is about.
 */
export async function inTurns<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}
