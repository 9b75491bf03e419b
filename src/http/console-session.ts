import { and, eq, gt } from "drizzle-orm";
import { getCookie } from "hono/cookie";
import { createDatabase } from "../db/client";
import { consoleSessions } from "../db/schema";
import type { Env } from "../env";
import { constantTimeEqual, hmacSha256Hex, importHmacKey, sha256Hex } from "../lib/crypto";
import type { AppContext } from "./context";

// The console's sign-in session as the admin API sees it (docs/console.md): a cookie holding
// `<random id>.<HMAC of the id>`, whose id's SHA-256 names a live row of `console_sessions`.
// The console capability (src/console/) creates and deletes the rows; `/admin/` reads them
// here, below every capability, through `adminAccess` (auth.ts).

export const CONSOLE_COOKIE = "console_session";
/** A session lasts 8 hours from signing in (docs/console.md). */
export const CONSOLE_SESSION_SECONDS = 8 * 60 * 60;

/**
 * The cookie's HMAC key: derived from the admin token itself, so rotating the token ends
 * every console session signed with the old one.
 */
function sessionKey(env: Env): Promise<CryptoKey> {
  return importHmacKey(`console-session\u0000${env.ADMIN_TOKEN ?? ""}`);
}

/** The cookie's value for a session id. */
export async function signedSessionCookie(env: Env, id: string): Promise<string> {
  return `${id}.${await hmacSha256Hex(await sessionKey(env), id)}`;
}

/** The session id of a cookie value whose signature holds, else null. */
export async function sessionIdOf(env: Env, cookie: string): Promise<string | null> {
  const match = /^([0-9a-f]{64})\.([0-9a-f]{64})$/.exec(cookie);
  if (!match || !env.ADMIN_TOKEN) return null;
  const expected = await hmacSha256Hex(await sessionKey(env), match[1]);
  return constantTimeEqual(expected, match[2]) ? match[1] : null;
}

/** What the row of a session id is keyed by: the id itself is never stored. */
export const sessionIdHash = (id: string): Promise<string> => sha256Hex(`console-session:${id}`);

/**
 * Whether the request may use a console cookie: it comes from a page of this service's own
 * origin. `Sec-Fetch-Site` (sent by every current browser) must say `same-origin` and
 * `Origin`, when sent, must be this origin; a request with neither cannot show where it
 * comes from and is refused too.
 */
export function fromOwnOrigin(c: AppContext): boolean {
  const site = c.req.header("Sec-Fetch-Site");
  const origin = c.req.header("Origin");
  if (site === undefined && origin === undefined) return false;
  if (site !== undefined && site !== "same-origin") return false;
  return origin === undefined || origin === new URL(c.req.url).origin;
}

/**
 * Whether the request's console cookie names a live session: signed with the current admin
 * token, and its row there and not expired. Read on the primary (a session just created or
 * just ended is seen at once), apart from the request's own D1 session.
 */
export async function liveConsoleSession(c: AppContext): Promise<boolean> {
  const cookie = getCookie(c, CONSOLE_COOKIE);
  const id = cookie === undefined ? null : await sessionIdOf(c.env, cookie);
  if (id === null) return false;
  const db = createDatabase(c.env.DB, c.var.roundTrips);
  const rows = await db
    .select({ idHash: consoleSessions.idHash })
    .from(consoleSessions)
    .where(and(eq(consoleSessions.idHash, await sessionIdHash(id)), gt(consoleSessions.expiresAt, new Date().toISOString())));
  return rows.length > 0;
}

/** Whether the request carries a console cookie at all (then it is judged as a console call). */
export const hasConsoleCookie = (c: AppContext): boolean => getCookie(c, CONSOLE_COOKIE) !== undefined;
