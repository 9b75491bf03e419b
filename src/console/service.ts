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

/**
 * Seconds until `client` may try again, 0 when it may now. The window slides: the minute
 * before counts in proportion to the part of it still inside the last 60 s (rounded up),
 * so ten wrong tries spread across a clock minute's turn are still ten in a minute; a
 * fixed clock minute would let twenty through in two seconds around its turn.
 */
export function secondsUntilFree(tries: { current: number; previous: number }, intoMinuteMs: number): number {
  const inWindow = (at: number) => tries.current + Math.ceil((tries.previous * (60_000 - at)) / 60_000);
  if (inWindow(intoMinuteMs) < WRONG_TRIES_PER_MINUTE) return 0;
  // The first millisecond of a minute at which `previous` tries of the minute before, plus
  // `current` of its own, fall below the limit.
  const freeFrom = (previous: number, current: number) => 60_000 - Math.floor(((WRONG_TRIES_PER_MINUTE - 1 - current) * 60_000) / previous);
  const waitMs =
    tries.current >= WRONG_TRIES_PER_MINUTE
      ? 60_000 - intoMinuteMs + freeFrom(tries.current, 0) // this minute's tries slide out during the next one
      : freeFrom(tries.previous, tries.current) - intoMinuteMs;
  return Math.max(1, Math.ceil(waitMs / 1000));
}

export interface SignedIn {
  cookie: string;
  expires_at: string;
}

/**
 * A session for the admin token `given`: a random id, its hash stored with its end (8 h),
 * the cookie its signed id. A wrong token is counted against `client` for this minute; ten in the last 60 s refuse the next try.
 */
export async function signIn(db: Database, env: Env, given: string, client: string, now = Date.now()): Promise<SignedIn> {
  const minute = Math.floor(now / 60_000);
  const retryAfter = secondsUntilFree(await repo.failuresAround(db, client, minute), now % 60_000);
  if (retryAfter > 0) {
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
