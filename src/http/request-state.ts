import { AsyncLocalStorage } from "node:async_hooks";
import { RoundTripCounter, RequestSession } from "../db/client";
import type { Env } from "../env";
import type { Principal } from "../rate-limits/principal";
import { config, ConfigError } from "../config";

/**
 * One incoming request's path through the service and what it cost: which D1 handle it reads
 * (the primary, or a session that a replica may serve), whether its operation declared that a
 * replica's not-found is served again from the primary, who authenticated it, and its
 * counters. Handlers and middleware reach it as `c.var.request` (src/http/context.ts); layers
 * without a context (the D1 client's counters, the token leases) through `currentRequest()`.
 * Every change goes through a named method below, so a reader finds each decision by name.
 */
export class RequestState {
  readonly d1 = new RoundTripCounter();
  /** Calls to the other bindings, counted with DIAGNOSTICS on for the latency model. */
  readonly bindingTrips = { kv: 0, r2: 0, queue: 0 };
  #session: RequestSession;
  #doTrips = 0;
  #retry = false;
  #answered = false;
  #notFound = false;
  #retryDeclared = false;
  #auth: { tokenHash: string; principal: Principal; headers: Record<string, string> } | undefined;
  readonly #counted = new Set<string>();
  #body: Uint8Array | undefined;

  constructor(env: Env) {
    this.#session = new RequestSession(env.DB);
  }

  /** The D1 session of this attempt (its queries, bookmark and constraint). */
  get session(): RequestSession {
    return this.#session;
  }

  /** Durable Object calls on the request's critical path (background lease renewals excluded). */
  get doTrips(): number {
    return this.#doTrips;
  }

  /** This is the second attempt, on the primary, of a replica's not-found. */
  get isRetryOnPrimary(): boolean {
    return this.#retry;
  }

  /** The hop headers are written: background work from here on (e.g. a job's first attempt) is not this request's cost. */
  get answered(): boolean {
    return this.#answered;
  }

  /**
   * Which D1 handle the request reads: `primary` (writes, and whatever must see them) or
   * `session` (a replica may answer, at least as fresh as `bookmark`). The retry of a
   * not-found reads the primary whatever was chosen.
   */
  readFrom(database: "primary" | "session", bookmark?: string | null): void {
    if (this.#retry) return;
    this.#session.primary = database === "primary";
    if (bookmark) this.#session.bookmark = bookmark;
  }

  /** The operation's declaration: a `*_not_found` read on a replica is served once more from the primary. */
  retryNotFoundOnPrimary(): void {
    this.#retryDeclared = true;
  }

  /** A `*_not_found` answer was produced (src/http/errors.ts answeringNotFound). */
  noteNotFound(): void {
    this.#notFound = true;
  }

  /** The request body as the JSON body rules read it, kept for the retry on the primary instead of a copy of every body. */
  keepBody(bytes: Uint8Array): void {
    this.#body = bytes;
  }

  /** The API token was admitted: kept so that the retry on the primary is neither authenticated nor counted twice. */
  authenticated(tokenHash: string, principal: Principal, headers: Record<string, string>): void {
    this.#auth = { tokenHash, principal, headers };
  }

  /** The admission of this token by the first attempt, when this is its retry. */
  admittedBefore(tokenHash: string): { principal: Principal; headers: Record<string, string> } | undefined {
    return this.#auth?.tokenHash === tokenHash ? this.#auth : undefined;
  }

  /** Whether this is the first time the request counts against `limit`: its retry on the primary is not counted again. */
  countOnce(limit: string): boolean {
    if (this.#counted.has(limit)) return false;
    this.#counted.add(limit);
    return true;
  }

  /** A Durable Object call on the critical path. */
  countDurableObjectCall(): void {
    this.#doTrips++;
  }

  /** Marks the answer written (see `answered`). */
  finishAnswer(): void {
    this.#answered = true;
  }

  /** Whether the first attempt's answer is served again from the primary. */
  shouldRetryOnPrimary(status: number): boolean {
    return this.#retryDeclared && this.#notFound && !this.#session.primary && this.d1.count > 0 && status >= 400;
  }

  /** The first attempt's body, for its replay. */
  get body(): Uint8Array | undefined {
    return this.#body;
  }

  retryOnPrimary(env: Env): void {
    this.#retry = true;
    this.#notFound = false;
    this.#answered = false;
    this.#session = new RequestSession(env.DB);
    this.#session.primary = true;
  }
}

const storage = new AsyncLocalStorage<RequestState>();

export function currentRequest(): RequestState | undefined {
  return storage.getStore();
}

export function runInRequest<T>(state: RequestState, fn: () => T): T {
  return storage.run(state, fn);
}

/**
 * Serves one request. An operation declared with `retryNotFoundOnPrimary` (see
 * http/replica-retry.ts) whose answer, read on a replica, is a "not found" (any
 * `*_not_found` but `route_not_found`, marked where the answer is made:
 * errors/answeringNotFound; e.g. a customer created a moment ago elsewhere) is served once
 * more from the primary, so nothing is missing right after its creation. The retry reuses
 * the authentication and the counters, so the call counts once and its headers report
 * every hop of both attempts. Undeclared operations answer what they found.
 */
export async function serveRequest(
  request: Request,
  env: Env,
  handle: (request: Request, env: Env) => Response | Promise<Response>,
): Promise<Response> {
  const state = new RequestState(env);
  const served = diagnosticsOn(env) ? countingBindings(env) : env;
  const first = await runInRequest(state, () => handle(request, served));
  if (!state.shouldRetryOnPrimary(first.status)) return first;
  // The body was read once by the JSON body rules; a route that never read it gets it untouched.
  const replay =
    state.body !== undefined && request.method !== "GET" && request.method !== "HEAD"
      ? new Request(request.url, { method: request.method, headers: request.headers, body: state.body })
      : request.bodyUsed
        ? undefined
        : request;
  if (!replay) return first;
  state.retryOnPrimary(env);
  await first.body?.cancel();
  return runInRequest(state, () => handle(replay, served));
}

const countedViews = new WeakMap<Env, Env>();

/**
 * Env with KV, R2 and queue calls counted for the request making them (DIAGNOSTICS on). Built once per env, not per request: each call finds its request's counters.
 */
function countingBindings(env: Env): Env {
  let view = countedViews.get(env);
  if (view) return view;
  const counted = <T extends object>(binding: T, methods: string[], kind: keyof RequestState["bindingTrips"]): T => {
    const wrapper = Object.create(binding) as Record<string, unknown>;
    for (const method of methods) {
      const original = (binding as Record<string, unknown>)[method];
      if (typeof original !== "function") continue;
      wrapper[method] = (...args: unknown[]) => {
        const state = storage.getStore();
        if (state && !state.answered) state.bindingTrips[kind]++;
        return (original as (...a: unknown[]) => unknown).apply(binding, args);
      };
    }
    return wrapper as T;
  };
  view = Object.create(env) as Env;
  view.LINKS = counted(env.LINKS, ["get", "getWithMetadata", "put", "delete", "list"], "kv");
  view.FILES = counted(env.FILES, ["get", "head", "put", "delete", "list", "createMultipartUpload"], "r2");
  view.DELIVERY_QUEUE = counted(env.DELIVERY_QUEUE, ["send", "sendBatch"], "queue");
  countedViews.set(env, view);
  return view;
}

/** A var that does not parse is answered by the app (500 naming it); nothing is counted then. */
function diagnosticsOn(env: Env): boolean {
  try {
    return config(env).DIAGNOSTICS;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

/** Notes that the current request produced a `*_not_found` answer. */
export function markNotFound(): void {
  storage.getStore()?.noteNotFound();
}
