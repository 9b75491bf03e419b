// The replica retry is declared on the operations that use it (`retryNotFoundOnPrimary`,
// src/http/replica-retry.ts): a declared read whose answer is a `*_not_found` is served once
// more on the D1 primary; an undeclared one answers what it found. Real local D1: the
// attempts show in X-D1-Session and the round-trip counters.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { handleError, newApp, requestContext } from "../../src/http/request-pipeline";
import { ApiError } from "../../src/http/errors";
import { adminOperation, publicOperation, successSchema } from "../../src/http/openapi";
import { serveRequest } from "../../src/http/request-state";
import { call, unique, workspace } from "../helpers/api";

const trips = (res: { headers: Headers }) => [
  res.headers.get("X-D1-Session"),
  Number(res.headers.get("X-D1-Round-Trips")),
  Number(res.headers.get("X-D1-Primary-Round-Trips")),
];

/** Two GET operations that read D1 once and answer 404 customer_not_found; only one declares the retry. */
function twoOperations() {
  const app = newApp();
  app.use("*", requestContext);
  app.onError(handleError);
  const declared = publicOperation({
    access: "public",
    method: "get",
    path: "/probe/declared",
    operationId: "probeDeclared",
    tags: ["probe"],
    summary: "probe",
    response: successSchema({}),
    database: "session",
    notFound: "retry on primary",
  });
  const undeclared = publicOperation({
    access: "public",
    method: "get",
    path: "/probe/undeclared",
    operationId: "probeUndeclared",
    tags: ["probe"],
    summary: "probe",
    response: successSchema({}),
    database: "session",
  });
  for (const operation of [declared, undeclared]) {
    app.openapi(operation, async (c) => {
      await c.get("db").all(sql`SELECT 1`);
      throw new ApiError("customer_not_found", "Nobody here.");
    });
  }
  return async (path: string) => {
    const ctx = createExecutionContext();
    const res = await serveRequest(new Request(`http://api.test${path}`), env as unknown as Env, (request, bindings) =>
      app.fetch(request, bindings, ctx),
    );
    await waitOnExecutionContext(ctx);
    return res;
  };
}

describe("retryNotFoundOnPrimary", () => {
  it("a declared operation's not-found is read again on the primary: two round trips, the second on the primary", async () => {
    const serve = twoOperations();
    const res = await serve("/probe/declared");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("customer_not_found");
    expect(trips(res)).toEqual(["first-primary", 2, 1]);
  });

  it("an undeclared operation answers its replica's not-found as it is: one round trip, none on the primary", async () => {
    const serve = twoOperations();
    const res = await serve("/probe/undeclared");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("customer_not_found");
    expect(trips(res)).toEqual(["first-unconstrained", 1, 0]);
  });

  it("is declared on the API's reads that can answer not-found (get_customer, get_blueprint, job_status)", async () => {
    const { read } = await workspace();
    const customer = await call("POST", "/api/get_customer/", { token: read, body: { provided_id: unique("nobody") } });
    expect([customer.status, customer.body.error.code, ...trips(customer)]).toEqual([404, "customer_not_found", "first-primary", 2, 1]);
    const blueprint = await call("POST", "/api/get_blueprint/", { token: read, body: { blueprint_id: 987_654_321 } });
    expect([blueprint.status, blueprint.body.error.code, blueprint.headers.get("X-D1-Session")]).toEqual([
      404,
      "blueprint_not_found",
      "first-primary",
    ]);
    const job = await call("POST", "/api/dashboard/job_status/", { token: read, body: { job_id: crypto.randomUUID() } });
    expect([job.status, job.body.error.code, job.headers.get("X-D1-Session")]).toEqual([404, "job_not_found", "first-primary"]);
    // The control: a found customer is answered from the replica-eligible session in one trip.
    const other = await workspace();
    const id = unique("somebody");
    await call("POST", "/api/create_customer/", { token: other.write, body: { provided_id: id } });
    const found = await call("POST", "/api/get_customer/", { token: other.read, body: { provided_id: id } });
    expect([found.status, ...trips(found)]).toEqual([200, "first-unconstrained", 1, 0]);
  });

  it("is refused where it could never fire: an admin POST reads the primary already", () => {
    const declare = () =>
      adminOperation({
        method: "post",
        path: "/admin/probe/",
        operationId: "probeWrite",
        tags: ["probe"],
        summary: "probe",
        response: successSchema({}),
        database: "primary",
        notFound: "retry on primary",
      });
    expect(declare).toThrow(/probeWrite: retryNotFoundOnPrimary is for operations that read on a replica/);
    expect(() =>
      adminOperation({
        method: "get",
        path: "/admin/probe/",
        operationId: "probeRead",
        tags: ["probe"],
        summary: "probe",
        response: successSchema({}),
        database: "session",
        notFound: "retry on primary",
      }),
    ).not.toThrow();
  });

  it("refuses a declared database the pipeline would not honour: a session on a POST, the primary on a GET without a token", () => {
    const declared = (method: "get" | "post", database: "primary" | "session") => () =>
      publicOperation({
        access: "public",
        method,
        path: "/probe/db",
        operationId: `probe_${method}_${database}`,
        tags: ["probe"],
        summary: "probe",
        response: successSchema({}),
        database,
      });
    expect(declared("post", "session")).toThrow(/probe_post_session: a POST without an API token reads database "primary", not "session"/);
    expect(declared("get", "primary")).toThrow(/probe_get_primary: a GET without an API token reads database "session", not "primary"/);
    expect(declared("get", "session")).not.toThrow();
    expect(declared("post", "primary")).not.toThrow();
  });
});
