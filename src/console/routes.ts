import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import CONSOLE_SCRIPT from "#browser/console.js";
import { config } from "../config";
import type { AppContext, AppEnv } from "../http/context";
import { CONSOLE_COOKIE, CONSOLE_SESSION_SECONDS, fromOwnOrigin, liveConsoleSession } from "../http/console-session";
import { ApiError } from "../http/errors";
import { declaredRoute, publicOperation, successSchema } from "../http/openapi";
import { consolePage } from "./page";
import { signIn, signOut } from "./service";

// The vendor's console (docs/console.md): its page, its script, and signing in
// and out. Everything else it does it does by calling the /admin/ API from the page.

const tags = ["Console"];
export const CONSOLE_SCRIPT_PATH = "/console/console.js";

const page = declaredRoute({
  access: "public",
  method: "get",
  path: "/console",
  operationId: "consolePage",
  tags,
  summary: "The vendor's console (HTML): sign in with the admin token, then build, preview, check and publish dashboards",
  responses: { 200: { description: "The console page.", content: { "text/html": { schema: z.string() } } } },
});

const script = declaredRoute({
  access: "public",
  method: "get",
  path: CONSOLE_SCRIPT_PATH,
  operationId: "consoleScript",
  tags,
  summary: "The console page's script",
  responses: { 200: { description: "JavaScript.", content: { "application/javascript": { schema: z.string() } } } },
});

const createSession = publicOperation({
  access: "admin token in body",
  method: "post",
  path: "/console/session",
  operationId: "consoleSignIn",
  tags,
  summary: "Sign in to the console: the admin token for a session cookie (8 h)",
  description:
    "Sets `console_session` (`HttpOnly; SameSite=Strict; Path=/`, `Secure` outside development), signed, for 8 hours: `/admin/` then accepts it " +
    "from the service's own pages. A wrong token is 401 `invalid_admin_token` and sets no cookie; after 10 wrong tries in a minute from one client " +
    "every try that minute is 429 `rate_limited`. From another site's page: 403 `cross_site_request`.",
  database: "primary",
  body: z.object({ admin_token: z.string().min(1).max(512) }).openapi("ConsoleSignIn"),
  response: successSchema({ expires_at: z.string().openapi({ description: "ISO 8601 UTC: when the session ends." }) }),
});

const endSession = publicOperation({
  access: "console session",
  method: "delete",
  path: "/console/session",
  operationId: "consoleSignOut",
  tags,
  summary: "Sign out of the console: the session ends at once, server-side",
  description:
    "The cookie is cleared and its session deleted: the old cookie no longer works anywhere. Without a session it changes nothing.",
  database: "primary",
  response: successSchema({}),
});

/** Who tries to sign in, for the count of wrong tries: the address Cloudflare saw. */
function clientOf(c: AppContext): string {
  return c.req.header("CF-Connecting-IP") ?? "unknown";
}

function refuseCrossSite(c: AppContext): void {
  if (!fromOwnOrigin(c)) throw new ApiError("cross_site_request", "The console is used from the service's own pages only.");
}

export function registerConsoleRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(page, async (c) => {
    const signedIn = await liveConsoleSession(c);
    c.header(
      "Content-Security-Policy",
      `default-src 'none'; script-src ${new URL(CONSOLE_SCRIPT_PATH, c.req.url).href}; style-src 'unsafe-inline'; img-src 'self' data:; ` +
        "connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cache-Control", "no-store");
    c.header("X-Robots-Tag", "noindex");
    return c.html(consolePage({ signedIn, script: CONSOLE_SCRIPT_PATH }), 200);
  });

  app.openapi(script, (c) => {
    c.header("Content-Type", "application/javascript; charset=utf-8");
    c.header("Cache-Control", "no-cache");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(CONSOLE_SCRIPT, 200);
  });

  app.openapi(createSession, async (c) => {
    refuseCrossSite(c);
    const session = await signIn(c.get("db"), c.env, c.req.valid("json").admin_token, clientOf(c));
    setCookie(c, CONSOLE_COOKIE, session.cookie, {
      httpOnly: true,
      sameSite: "Strict",
      secure: config(c.env).ENVIRONMENT !== "development",
      path: "/",
      maxAge: CONSOLE_SESSION_SECONDS,
    });
    c.header("Cache-Control", "no-store");
    return c.json({ success: 1 as const, expires_at: session.expires_at }, 200);
  });

  app.openapi(endSession, async (c) => {
    refuseCrossSite(c);
    await signOut(c.get("db"), c.env, getCookie(c, CONSOLE_COOKIE));
    deleteCookie(c, CONSOLE_COOKIE, { path: "/", httpOnly: true, sameSite: "Strict", secure: config(c.env).ENVIRONMENT !== "development" });
    return c.json({ success: 1 as const }, 200);
  });
}
