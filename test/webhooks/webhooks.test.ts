import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { createDatabase } from "../../src/db/client";
import { deliverWebhook } from "../../src/webhooks/service";
import { callWithEnv } from "../helpers/api";
import { admin, call, createCustomer, deliverySetup, jobCount, sentMails, unique, waitForJob } from "../helpers/delivery";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
let secret: string;
beforeAll(async () => {
  ctx = await deliverySetup();
  const created = await admin("POST", "/admin/webhook_secrets/", { access_group: ctx.group });
  expect(created.status).toBe(200);
  secret = created.body.secret;
});

interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What the stand-in receiver got for `name`, waiting until there are at least `count`. */
async function received(name: string, count: number, timeoutMs = 30_000): Promise<Received[]> {
  const started = Date.now();
  for (;;) {
    const calls = (await (await fetch(`https://webhook.test/_received/${name}`)).json()) as Received[];
    if (calls.length >= count || Date.now() - started > timeoutMs) return calls;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The receiver's check as docs/delivery.md shows it: a timestamp within 5 minutes of `now`
 * (Unix seconds), and the signature over `<timestamp>.<body>`, compared in constant time.
 */
async function verify(secret: string, headers: Record<string, string>, rawBody: string, now: number): Promise<boolean> {
  const timestamp = Number(headers["x-signature-timestamp"]);
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > 300) return false;
  const expected = new TextEncoder().encode(`sha256=${await hmacHex(secret, `${timestamp}.${rawBody}`)}`);
  const given = new TextEncoder().encode(headers["x-signature"] ?? "");
  return expected.length === given.length && crypto.subtle.timingSafeEqual(expected, given);
}

async function hmacHex(key: string, body: string): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey("raw", new TextEncoder().encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, new TextEncoder().encode(body)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("completion webhooks", () => {
  it("is documented in /openapi.json: callback_url, the callback itself, the admin operation", async () => {
    const document = (await call("GET", "/openapi.json")).body;
    for (const path of ["/api/dashboard/screenshot", "/api/dashboard/report"]) {
      const operation = document.paths[path].post;
      expect(
        operation.callbacks.jobEnded["{$request.body#/callback_url}"].post.requestBody.content["application/json"].schema.required,
      ).toEqual(["job_id", "status", "error"]);
      const body = operation.requestBody.content["application/json"].schema;
      const schema = body.$ref ? document.components.schemas[body.$ref.split("/").pop()] : body;
      expect(schema.properties.callback_url).toMatchObject({ type: "string", format: "uri" });
    }
    const admin = document.paths["/admin/webhook_secrets/"].post;
    expect(Object.keys(admin.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404"]));
  });

  it("shows the secret once, with the access group", async () => {
    const other = await deliverySetup();
    const res = await admin("POST", "/admin/webhook_secrets/", { access_group: other.group });
    expect(res.status).toBe(200);
    expect(res.body.webhook_secret).toEqual({ access_group: other.group, created_at: expect.any(String) });
    expect(res.body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
  });

  it("refuses an unknown access group (404 access_group_not_found) and a missing one (400)", async () => {
    const unknown = await admin("POST", "/admin/webhook_secrets/", { access_group: unique("nobody") });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "access_group_not_found", field: "access_group" });
    const missing = await admin("POST", "/admin/webhook_secrets/", {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "validation_error", field: "access_group" });
  });

  it("posts {job_id, status, error, url} once when a download job is done, signed with the group's secret", async () => {
    const name = unique("done");
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, callback_url: `https://webhook.test/${name}` },
    });
    expect(res.status).toBe(200);
    await waitForJob(ctx.read, res.body.job_id, (s) => s === "done");
    const [hook] = await received(name, 1);
    expect(JSON.parse(hook.body)).toEqual({ job_id: res.body.job_id, status: "done", error: null, url: res.body.url });
    expect(hook.headers["content-type"]).toBe("application/json");
    // Signed over `<timestamp>.<body>` with the time of sending (Unix seconds).
    const timestamp = Number(hook.headers["x-signature-timestamp"]);
    expect(String(timestamp)).toBe(hook.headers["x-signature-timestamp"]);
    expect(Math.abs(timestamp - hook.at / 1000)).toBeLessThan(5);
    expect(hook.headers["x-signature"]).toBe(`sha256=${await hmacHex(secret, `${timestamp}.${hook.body}`)}`);
    // The receiver's check of docs/delivery.md: accepted now, refused as a replay 6 minutes on, refused altered.
    expect(await verify(secret, hook.headers, hook.body, timestamp)).toBe(true);
    expect(await verify(secret, hook.headers, hook.body, timestamp + 6 * 60)).toBe(false);
    expect(await verify(secret, hook.headers, hook.body.replace('"done"', '"failed"'), timestamp)).toBe(false);
    expect(await verify(secret, { ...hook.headers, "x-signature-timestamp": String(timestamp + 1) }, hook.body, timestamp + 1)).toBe(false);
    // Delivered once: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await received(name, 2, 0)).toHaveLength(1);
  }, 60_000);

  it("reports a failed job with its short reason (customer deleted before the job ran)", async () => {
    const name = unique("failed");
    const doomed = await createCustomer(ctx.write, { provided_id: unique("doomed"), mapping: { [ctx.schema]: ctx.demo } });
    // The first capture fails (retried 5 s later), so the deletion surely lands before the job can finish.
    const kv = (env as unknown as { LINKS: KVNamespace }).LINKS;
    await kv.put("fault:browser", "1");
    const res = await call("POST", "/api/dashboard/report", {
      token: ctx.write,
      body: {
        provided_id: doomed.provided_id,
        dashboard_embed_id: ctx.embedId,
        email: "hook@alpha.example",
        callback_url: `https://webhook.test/${name}`,
      },
    });
    expect(res.status).toBe(200);
    const deleted = await call("DELETE", "/api/delete_customer/", { token: ctx.write, body: { current_token: doomed.token } });
    expect(deleted.status).toBe(200);
    const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed", 30_000);
    await kv.delete("fault:browser");
    expect(job).toMatchObject({ status: "failed", error: "The customer was deleted before the job ran." });
    const [hook] = await received(name, 1);
    expect(JSON.parse(hook.body)).toEqual({
      job_id: res.body.job_id,
      status: "failed",
      error: "The customer was deleted before the job ran.",
    });
    expect(await sentMails(res.body.job_id)).toHaveLength(0);
  }, 60_000);

  it("retries with backoff when the receiver answers 500", async () => {
    const name = unique("retry");
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, callback_url: `https://webhook.test/fail-1/${name}` },
    });
    await waitForJob(ctx.read, res.body.job_id, (s) => s === "done");
    const calls = await received(name, 2, 45_000);
    expect(calls).toHaveLength(2);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(4_000);
    expect(calls[1].body).toBe(calls[0].body);
    // Each retry is signed afresh: its own timestamp, its own signature.
    const [first, second] = calls.map((c) => Number(c.headers["x-signature-timestamp"]));
    expect(second - first).toBeGreaterThanOrEqual(4);
    expect(calls[1].headers["x-signature"]).toBe(`sha256=${await hmacHex(secret, `${second}.${calls[1].body}`)}`);
    expect(calls[1].headers["x-signature"]).not.toBe(calls[0].headers["x-signature"]);
  }, 90_000);

  it.each([
    ["ftp", "ftp://webhook.test/hook"],
    ["javascript", "javascript:alert(1)"],
    ["plain http to another host", "http://webhook.test/hook"],
    ["not a URL", "hook"],
  ])("refuses a callback_url with scheme %s (400, no job)", async (_name, callbackUrl) => {
    const before = await jobCount();
    for (const path of ["/api/dashboard/screenshot", "/api/dashboard/report"]) {
      const res = await call("POST", path, {
        token: ctx.write,
        body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, email: "a@b.example", callback_url: callbackUrl },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field: "callback_url" });
    }
    expect(await jobCount()).toBe(before);
  });

  it("reports a refused callback_url (400) before an unknown customer (404), and a missing secret (422) after it", async () => {
    const other = await deliverySetup();
    const bad = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: "nobody-here", dashboard_embed_id: ctx.embedId, callback_url: "ftp://x.example/" },
    });
    expect(bad.status).toBe(400);
    const noSecret = await call("POST", "/api/dashboard/screenshot", {
      token: other.write,
      body: { provided_id: "nobody-here", dashboard_embed_id: other.embedId, callback_url: "https://webhook.test/x" },
    });
    expect(noSecret.status).toBe(404);
    expect(noSecret.body.error.code).toBe("customer_not_found");
  });

  describe("the destination policy (a workspace of its own: refused calls count against the delivery rate limit)", () => {
    let own: Awaited<ReturnType<typeof deliverySetup>>;
    beforeAll(async () => {
      own = await deliverySetup();
      expect((await admin("POST", "/admin/webhook_secrets/", { access_group: own.group })).status).toBe(200);
    });
    const request = (callbackUrl: string, path = "/api/dashboard/screenshot") =>
      [
        "POST",
        path,
        {
          token: own.write,
          body: { provided_id: own.customer.provided_id, dashboard_embed_id: own.embedId, email: "a@b.example", callback_url: callbackUrl },
        },
      ] as const;

    it.each([
      ["cloud metadata", "https://169.254.169.254/latest/meta-data/", "/api/dashboard/screenshot"],
      ["IPv6 loopback", "https://[::1]/hook", "/api/dashboard/report"],
      ["loopback in hex, over http (not the development exception's spelling)", "http://0x7f000001:9/hook", "/api/dashboard/screenshot"],
      ["IPv4-mapped IPv6 of a private address", "https://[::ffff:10.0.0.1]/hook", "/api/dashboard/report"],
      ["an *.internal name", "https://metadata.google.internal/hook", "/api/dashboard/screenshot"],
    ])("refuses a callback_url to %s (400 validation_error, no job)", async (_name, callbackUrl, path) => {
      const before = await jobCount();
      const res = await call(...request(callbackUrl, path));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field: "callback_url" });
      expect(await jobCount()).toBe(before);
    });

    it("refuses localhost outside development; a public https host is accepted there (control)", async () => {
      const local = await callWithEnv({ ENVIRONMENT: "staging" }, ...request("http://localhost:9/hook"));
      expect(local.status).toBe(400);
      expect(local.body.error).toMatchObject({ code: "validation_error", field: "callback_url" });
      const remote = await callWithEnv({ ENVIRONMENT: "staging" }, ...request("https://webhook.test/staging"));
      expect(remote.status).toBe(200);
    });
  });

  describe("section 26's ranges, wildcard-DNS names and resolved addresses (a workspace of its own)", () => {
    let own: Awaited<ReturnType<typeof deliverySetup>>;
    beforeAll(async () => {
      own = await deliverySetup();
      expect((await admin("POST", "/admin/webhook_secrets/", { access_group: own.group })).status).toBe(200);
    });
    const RESOLVER = { DNS_RESOLVER_URL: "https://dns.test/dns-query" };
    const screenshot = (callbackUrl: string) =>
      [
        "POST",
        "/api/dashboard/screenshot",
        {
          token: own.write,
          body: { provided_id: own.customer.provided_id, dashboard_embed_id: own.embedId, email: "a@b.example", callback_url: callbackUrl },
        },
      ] as const;
    const refusedWithNoJob = async (res: { status: number; body: any }, before: number) => {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "validation_error", field: "callback_url" });
      expect(await jobCount()).toBe(before);
    };

    it.each([
      ["a wildcard-DNS name pointing at loopback", "https://localtest.me:8951/"],
      ["a nip.io name spelling 127.0.0.1", "https://127.0.0.1.nip.io/"],
      ["benchmarking 198.18.0.0/15", "https://198.18.0.1/"],
      ["documentation 192.0.2.0/24", "https://192.0.2.1/"],
      ["IPv4-translated IPv6 of loopback", "https://[::ffff:0:127.0.0.1]/"],
      ["local-use NAT64 of loopback", "https://[64:ff9b:1::7f00:1]/"],
      ["IPv6 documentation", "https://[2001:db8::1]/"],
    ])("refuses %s (%s), with no resolver configured", async (_name, callbackUrl) => {
      const before = await jobCount();
      await refusedWithNoJob(await call(...screenshot(callbackUrl)), before);
    });

    it.each([
      ["a name whose address is private", "https://inward.example/hook"],
      ["a name with a private address among public ones", "https://mixed.example/hook"],
      ["a name whose AAAA is loopback", "https://loopback6.example/hook"],
      ["a name whose AAAA is IPv4-mapped metadata", "https://mapped.example/hook"],
      ["a name that does not exist", "https://nowhere.example/hook"],
    ])("with DNS_RESOLVER_URL, refuses %s", async (_name, callbackUrl) => {
      const before = await jobCount();
      await refusedWithNoJob(await callWithEnv(RESOLVER, ...screenshot(callbackUrl)), before);
    });

    it("with DNS_RESOLVER_URL, refuses when the resolver cannot answer (fails closed)", async () => {
      const before = await jobCount();
      const res = await callWithEnv({ DNS_RESOLVER_URL: "https://dns.test/broken" }, ...screenshot("https://webhook.test/x"));
      await refusedWithNoJob(res, before);
      expect(res.body.error.message).toContain("could not be resolved");
    });

    it("accepts a public name through the resolver (control) and the same URLs without one keep their spelling rule", async () => {
      expect((await callWithEnv(RESOLVER, ...screenshot("https://webhook.test/resolved"))).status).toBe(200);
      // Without a resolver the service cannot know where inward.example points: judged by its spelling.
      expect((await call(...screenshot("https://inward.example/hook"))).status).toBe(200);
    });

    it("checks again at sending: a name that resolves inward since it was saved is never called", async () => {
      const path = unique("flip");
      const name = `${path}.webhook.test`;
      const group = await (env as unknown as { DB: D1Database }).DB.prepare("SELECT id FROM access_groups WHERE name = ?")
        .bind(own.group)
        .first<{ id: number }>();
      const target = {
        url: `https://${name}/${path}`,
        accessGroupId: group!.id,
        body: { job_id: "job_flip", status: "done" as const, error: null },
      };
      const db = createDatabase((env as unknown as { DB: D1Database }).DB);
      const resolving = { ...(env as object), ...RESOLVER } as never;
      // Control: public when it was saved, so called.
      expect(await deliverWebhook(db, resolving, target, 1)).toBe("delivered");
      await fetch(`https://dns.test/_records?name=${name}`, { method: "POST", body: JSON.stringify({ A: ["10.1.2.3"] }) });
      expect(await deliverWebhook(db, resolving, target, 1)).toBe("gave_up");
      expect(await received(path, 1)).toHaveLength(1);
    });
  });

  it("never calls a refused destination stored before the policy: the attempt gives up", async () => {
    const target = {
      url: "https://169.254.169.254/latest/meta-data/",
      accessGroupId: 1,
      body: { job_id: "job_x", status: "done" as const, error: null },
    };
    const db = createDatabase((env as unknown as { DB: D1Database }).DB);
    expect(await deliverWebhook(db, env as never, target, 1)).toBe("gave_up");
  });

  it("accepts plain http on localhost in development", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, callback_url: "http://localhost:9/hook" },
    });
    expect(res.status).toBe(200);
  });

  it("refuses a callback_url when the access group has no webhook secret (422 webhook_secret_missing, no job)", async () => {
    const other = await deliverySetup();
    const before = await jobCount();
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: other.write,
      body: { provided_id: other.customer.provided_id, dashboard_embed_id: other.embedId, callback_url: "https://webhook.test/never" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: "webhook_secret_missing", field: "callback_url" });
    expect(await jobCount()).toBe(before);
  });
});
