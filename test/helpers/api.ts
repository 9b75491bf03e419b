import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import worker from "../../src/index";

export const ADMIN_TOKEN = "test-admin-token";
const BASE = "http://api.test";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

interface CallOptions {
  token?: string;
  admin?: boolean;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

function apiRequest(method: string, path: string, options: CallOptions): Request {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers["Service-Authorization"] = `Token ${options.token}`;
  if (options.admin) headers.Authorization = `Bearer ${ADMIN_TOKEN}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  return new Request(`${BASE}${path}`, { method, headers, body });
}

async function apiResponse<T>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** Calls the Worker through its real fetch handler. */
export async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  return apiResponse<T>(await (exports as any).default.fetch(apiRequest(method, path, options)));
}

/**
 * Calls the Worker's fetch handler with `overrides` on top of the test's bindings and vars
 * (another ENVIRONMENT or LOG_LEVEL, a binding that fails like an outage), and waits for
 * the work the call left in the background.
 */
export async function callWithEnv<T = any>(
  overrides: Record<string, unknown>,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse<T>> {
  const executionContext = createExecutionContext();
  const response = await worker.fetch(apiRequest(method, path, options), { ...(env as object), ...overrides } as never, executionContext);
  const answer = await apiResponse<T>(response);
  await waitOnExecutionContext(executionContext);
  return answer;
}

export const admin = (method: string, path: string, body?: unknown) => call(method, path, { admin: true, body });

let counter = 0;
/** A name no other test of the same file uses (each test file has its own storage, but its tests share it). */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A fresh access group with a write and a read token, made through the admin API. */
export async function workspace(): Promise<{ group: string; write: string; read: string }> {
  const group = unique("group");
  const created = await admin("POST", "/admin/access_groups/", { name: group });
  if (created.status !== 200) throw new Error(`access group: ${JSON.stringify(created.body)}`);
  const write = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "write" });
  const read = await admin("POST", "/admin/api_tokens/", { access_group: group, permission: "read" });
  return { group, write: write.body.token, read: read.body.token };
}

/** Creates a customer and fails loudly when that does not work. */
export async function createCustomer(token: string, body: Record<string, unknown>) {
  const res = await call("POST", "/api/create_customer/", { token, body });
  if (res.status !== 200) throw new Error(`create_customer: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.customer;
}

/** A schema and a data source on the DEMO_DATA binding, registered through the admin API. */
export async function schemaAndSource(): Promise<{ schemaId: number; dataSourceId: number; dataSourceProvidedId: string }> {
  const schema = await admin("POST", "/admin/schemas/", { name: unique("schema") });
  const providedId = unique("source");
  const source = await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA", provided_id: providedId });
  if (schema.status !== 200 || source.status !== 200) throw new Error(`admin: ${JSON.stringify([schema.body, source.body])}`);
  return { schemaId: schema.body.schema.id, dataSourceId: source.body.data_source.id, dataSourceProvidedId: providedId };
}

export async function getCustomer(token: string, providedId: string) {
  return call("POST", "/api/get_customer/", { token, body: { provided_id: providedId } });
}

export async function createTag(token: string, name: string) {
  const res = await call("POST", "/api/create_group_tag/", { token, body: { name } });
  if (res.status !== 200) throw new Error(`create_group_tag: ${JSON.stringify(res.body)}`);
}

export function roundTrips(res: ApiResponse): number {
  return Number(res.headers.get("X-D1-Round-Trips"));
}

/** SHA-256 as lowercase hex, computed here independently of the service's own helper. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
