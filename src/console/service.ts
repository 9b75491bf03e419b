import type { Database } from "../db/client";
import type { Env } from "../env";
import { isAdminToken } from "../http/auth";
import { CONSOLE_SESSION_SECONDS, sessionIdHash, sessionIdOf, signedSessionCookie } from "../http/console-session";
import { ApiError } from "../http/errors";
import { randomHex } from "../lib/crypto";
import * as repo from "./repository";

// Signing in to the console and out of it (docs/console.md). The console adds no
// rule of its own to the admin API: a session is only another way to present the admin token.

/** Wrong admin tokens one client may give in a minute; the next try is refused before any comparison. */
export const WRONG_TRIES_PER_MINUTE = 10;

export interface SignedIn {
  cookie: string;
  expires_at: string;
}

/**
 * A session for the admin token `given`: a random id, its hash stored with its end (8 h),
 * the cookie its signed id. A wrong token is counted against `client` for this minute.
 */
export async function signIn(db: Database, env: Env, given: string, client: string, now = Date.now()): Promise<SignedIn> {
  const minute = Math.floor(now / 60_000);
  if ((await repo.failuresIn(db, client, minute)) >= WRONG_TRIES_PER_MINUTE) {
    const retryAfter = 60 - Math.floor((now % 60_000) / 1000);
    throw new ApiError("rate_limited", `Too many wrong admin tokens; retry in ${retryAfter} s.`, undefined, {
      "Retry-After": String(retryAfter),
    });
  }
  const expected = env.ADMIN_TOKEN;
  if (!expected || !(await isAdminToken(expected, given))) {
    await repo.recordFailure(db, client, minute);
    throw new ApiError("invalid_admin_token", "That is not the admin token.", "admin_token");
  }
  const id = randomHex(32);
  const expiresAt = new Date(now + CONSOLE_SESSION_SECONDS * 1000).toISOString();
  await repo.insertSession(db, await sessionIdHash(id), expiresAt, minute);
  return { cookie: await signedSessionCookie(env, id), expires_at: expiresAt };
}

/** Ends the session of a cookie at once (its row deleted); a cookie that names none changes nothing. */
export async function signOut(db: Database, env: Env, cookie: string | undefined): Promise<void> {
  const id = cookie === undefined ? null : await sessionIdOf(env, cookie);
  if (id !== null) await repo.deleteSession(db, await sessionIdHash(id));
}
