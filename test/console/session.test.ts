import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { secondsUntilFree } from "../../src/console/service";
import { ADMIN_TOKEN, callWithEnv, unique } from "../helpers/api";

// The console's sign-in (docs/console.md), through the Worker's real fetch
// handler and its D1: the session cookie, its end, the same-origin rule on /admin/, the
// wrong-try limit. Every refusal has a passing control beside it.

const BASE = "http://api.test";
const SAME_ORIGIN = { "Sec-Fetch-Site": "same-origin", Origin: BASE };

function fetchWorker(method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  return (exports as any).default.fetch(new Request(`${BASE}${path}`, { method, headers, body })) as Promise<Response>;
}

/** A client of its own (the count of wrong tries is per client). */
const client = () => ({ "CF-Connecting-IP": `198.51.100.${Math.floor(Math.random() * 250) + 1}-${unique("c")}` });

async function signIn(token = ADMIN_TOKEN, headers: Record<string, string> = client()) {
  const response = await fetchWorker("POST", "/console/session", { headers: { ...SAME_ORIGIN, ...headers }, body: { admin_token: token } });
  return { response, body: (await response.json()) as any, setCookie: response.headers.get("Set-Cookie") };
}

/** The `name=value` of a Set-Cookie header, as a browser sends it back. */
const cookieOf = (setCookie: string | null) => (setCookie ?? "").split(";")[0];

afterEach(() => vi.restoreAllMocks());

describe("GET /console/", () => {
  it("serves the sign-in form (label Admin token, button Sign in), its script by URL, nothing from another origin", async () => {
    const response = await fetchWorker("GET", "/console/");
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toMatch(/<label for="admin-token">Admin token<\/label>/);
    expect(html).toMatch(/<input id="admin-token"[^>]*type="password"/);
    expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
    expect(html).toContain('<script src="/console/console.js"></script>');
    expect(html).not.toContain(ADMIN_TOKEN);
    const csp = response.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`script-src ${BASE}/console/console.js;`);
    expect(csp).toContain("frame-ancestors 'none'");
    const script = await fetchWorker("GET", "/console/console.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("Content-Type")).toContain("javascript");
    expect((await script.text()).length).toBeGreaterThan(1000);
  });

  it("is the console's shell (Sign out) once signed in, still without the admin token", async () => {
    const { setCookie } = await signIn();
    const response = await fetchWorker("GET", "/console/", { headers: { Cookie: cookieOf(setCookie) } });
    const html = await response.text();
    expect(html).toContain('data-signed-in="true"');
    expect(html).toContain(">Sign out</button>");
    expect(html).not.toContain(ADMIN_TOKEN);
    expect(html).not.toContain(cookieOf(setCookie).split("=")[1]);
  });
});

describe("POST /console/session", () => {
  it("answers success, expires_at 8 h ahead and a signed HttpOnly SameSite=Strict cookie on Path=/ (no Secure in development)", async () => {
    const before = Date.now();
    const { response, body, setCookie } = await signIn();
    expect(response.status).toBe(200);
    expect(body.success).toBe(1);
    const expires = Date.parse(body.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(8 * 3600 * 1000 - 5000);
    expect(expires - before).toBeLessThanOrEqual(8 * 3600 * 1000 + 5000);
    expect(setCookie).toMatch(/^console_session=[0-9a-f]{64}\.[0-9a-f]{64};/);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).toContain("Max-Age=28800");
    expect(setCookie).not.toContain("Secure");
    expect(setCookie).not.toContain(ADMIN_TOKEN);
  });

  it("sets the cookie Secure outside development", async () => {
    const response = await callWithEnv({ ENVIRONMENT: "staging" }, "POST", "/console/session", {
      headers: { ...SAME_ORIGIN, ...client() },
      body: { admin_token: ADMIN_TOKEN },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("Set-Cookie")).toContain("Secure");
  });

  it("refuses a wrong token with 401 invalid_admin_token and sets no cookie (control: the right one does)", async () => {
    const wrong = await signIn("not-the-admin-token");
    expect(wrong.response.status).toBe(401);
    expect(wrong.body.error.code).toBe("invalid_admin_token");
    expect(wrong.setCookie).toBeNull();
    const right = await signIn();
    expect(right.response.status).toBe(200);
    expect(right.setCookie).toContain("console_session=");
  });

  it("answers 429 after 10 wrong tries in a minute from one client, the right token included; another client still signs in", async () => {
    const mine = client();
    for (let i = 0; i < 10; i++) expect((await signIn(`wrong-${i}`, mine)).response.status).toBe(401);
    const eleventh = await signIn("wrong-again", mine);
    expect(eleventh.response.status).toBe(429);
    expect(eleventh.body.error.code).toBe("rate_limited");
    expect(Number(eleventh.response.headers.get("Retry-After"))).toBeGreaterThan(0);
    const rightButLimited = await signIn(ADMIN_TOKEN, mine);
    expect(rightButLimited.response.status).toBe(429);
    expect(rightButLimited.setCookie).toBeNull();
    // Control: nine wrong tries from another client leave it free to sign in.
    const other = client();
    for (let i = 0; i < 9; i++) expect((await signIn(`wrong-${i}`, other)).response.status).toBe(401);
    expect((await signIn(ADMIN_TOKEN, other)).response.status).toBe(200);
  });

  describe("the wrong-try window slides over the turn of a clock minute", () => {
    it("ten tries split across the turn still refuse the next one, until the older ones have slid out", () => {
      // 6 tries late in one minute, 4 early in the next: one second into it, all ten are within 60 s.
      expect(secondsUntilFree({ previous: 6, current: 4 }, 1_000)).toBeGreaterThan(0);
      expect(secondsUntilFree({ previous: 10, current: 0 }, 0)).toBe(6);
      expect(secondsUntilFree({ previous: 0, current: 10 }, 15_000)).toBe(51);
      // Control: nine in the window, or ten whose older part has slid out, leave the client free.
      expect(secondsUntilFree({ previous: 5, current: 4 }, 0)).toBe(0);
      expect(secondsUntilFree({ previous: 10, current: 0 }, 6_000)).toBe(0);
      expect(secondsUntilFree({ previous: 6, current: 4 }, 59_000)).toBe(0);
    });

    it("the Retry-After it names is the moment the client is free again", () => {
      for (const tries of [
        { previous: 6, current: 4 },
        { previous: 10, current: 0 },
        { previous: 3, current: 9 },
        { previous: 0, current: 10 },
      ]) {
        for (const into of [0, 1_000, 20_500, 59_999]) {
          const wait = secondsUntilFree(tries, into);
          if (wait === 0) continue;
          const freeAt = into + wait * 1000;
          // The state at a moment of this minute or of the next one (where this one's tries are the previous).
          const at = (ms: number) =>
            ms < 60_000 ? secondsUntilFree(tries, ms) : secondsUntilFree({ previous: tries.current, current: 0 }, ms - 60_000);
          expect(at(freeAt)).toBe(0);
          expect(at(freeAt - 1000)).toBeGreaterThan(0);
        }
      }
    });
  });

  it("refuses a sign-in posted from another site's page (403 cross_site_request)", async () => {
    const response = await fetchWorker("POST", "/console/session", {
      headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example", ...client() },
      body: { admin_token: ADMIN_TOKEN },
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as any).error.code).toBe("cross_site_request");
    expect(response.headers.get("Set-Cookie")).toBeNull();
  });

  it("never writes the admin token to a log line", async () => {
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => vi.spyOn(console, level));
    const signedIn = await callWithEnv({ LOG_LEVEL: "debug" }, "POST", "/console/session", {
      headers: { ...SAME_ORIGIN, ...client() },
      body: { admin_token: ADMIN_TOKEN },
    });
    await callWithEnv({ LOG_LEVEL: "debug" }, "POST", "/console/session", {
      headers: { ...SAME_ORIGIN, ...client() },
      body: { admin_token: `${ADMIN_TOKEN}-wrong` },
    });
    const lines = spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(" ")));
    expect(signedIn.status).toBe(200);
    // Control: the requests were logged.
    expect(lines.filter((line) => line.includes("/console/session")).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((line) => line.includes(ADMIN_TOKEN))).toEqual([]);
  });
});

describe("/admin/ with the console's cookie", () => {
  it("accepts the cookie from the service's own pages (control: without it, 401)", async () => {
    const { setCookie } = await signIn();
    const withCookie = await fetchWorker("GET", "/admin/dashboards/", {
      headers: { Cookie: cookieOf(setCookie), "Sec-Fetch-Site": "same-origin" },
    });
    expect(withCookie.status).toBe(200);
    expect(((await withCookie.json()) as any).success).toBe(1);
    const posted = await fetchWorker("POST", "/admin/dashboards/", {
      headers: { Cookie: cookieOf(setCookie), ...SAME_ORIGIN },
      body: { embed_id: unique("console").slice(0, 60), name: "From the console" },
    });
    expect(posted.status).toBe(200);
    const without = await fetchWorker("GET", "/admin/dashboards/", { headers: { "Sec-Fetch-Site": "same-origin" } });
    expect(without.status).toBe(401);
    expect(((await without.json()) as any).error.code).toBe("invalid_admin_token");
  });

  it.each([
    ["Sec-Fetch-Site cross-site", { "Sec-Fetch-Site": "cross-site" }],
    ["Sec-Fetch-Site same-site (another origin of the site)", { "Sec-Fetch-Site": "same-site", Origin: "http://other.api.test" }],
    ["an Origin of another site", { Origin: "https://evil.example" }],
    ["neither header", {}],
  ])("refuses the cookie with %s: 403 cross_site_request", async (_name, headers) => {
    const { setCookie } = await signIn();
    const refused = await fetchWorker("POST", "/admin/dashboards/", {
      headers: { Cookie: cookieOf(setCookie), ...headers },
      body: { name: "Not from the console" },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe("cross_site_request");
    // Control: the same cookie from the service's own page.
    const accepted = await fetchWorker("GET", "/admin/dashboards/", { headers: { Cookie: cookieOf(setCookie), ...SAME_ORIGIN } });
    expect(accepted.status).toBe(200);
  });

  it("still takes the Bearer admin token from anywhere (a script, not a page)", async () => {
    const response = await fetchWorker("GET", "/admin/dashboards/", {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Sec-Fetch-Site": "cross-site" },
    });
    expect(response.status).toBe(200);
  });

  it("refuses a cookie whose signature or id was altered (control: the real one)", async () => {
    const { setCookie } = await signIn();
    const cookie = cookieOf(setCookie);
    const [id, signature] = cookie.split("=")[1].split(".");
    const flip = (hex: string) => (hex[0] === "a" ? "b" : "a") + hex.slice(1);
    for (const forged of [`console_session=${id}.${flip(signature)}`, `console_session=${flip(id)}.${signature}`]) {
      const refused = await fetchWorker("GET", "/admin/dashboards/", { headers: { Cookie: forged, ...SAME_ORIGIN } });
      expect(refused.status).toBe(401);
    }
    expect((await fetchWorker("GET", "/admin/dashboards/", { headers: { Cookie: cookie, ...SAME_ORIGIN } })).status).toBe(200);
  });

  it("signing out ends the session at once: the old cookie no longer works", async () => {
    const { setCookie } = await signIn();
    const cookie = cookieOf(setCookie);
    expect((await fetchWorker("GET", "/admin/dashboards/", { headers: { Cookie: cookie, ...SAME_ORIGIN } })).status).toBe(200);
    const out = await fetchWorker("DELETE", "/console/session", { headers: { Cookie: cookie, ...SAME_ORIGIN } });
    expect(out.status).toBe(200);
    expect(out.headers.get("Set-Cookie")).toMatch(/^console_session=;.*Max-Age=0/);
    const after = await fetchWorker("GET", "/admin/dashboards/", { headers: { Cookie: cookie, ...SAME_ORIGIN } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as any).error.code).toBe("invalid_admin_token");
    // Control: another session is untouched.
    const other = cookieOf((await signIn()).setCookie);
    expect((await fetchWorker("GET", "/admin/dashboards/", { headers: { Cookie: other, ...SAME_ORIGIN } })).status).toBe(200);
  });
});
