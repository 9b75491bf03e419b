import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { consoleSessions, consoleSignInFailures } from "../db/schema";

// The console's rows (migration 0020): its sessions and the sign-in form's wrong tries.

/** A new session, and the expired ones (and last minutes' counts) swept in the same batch. */
export function insertSession(db: Database, idHash: string, expiresAt: string, minute: number) {
  const now = new Date().toISOString();
  return db.batch([
    db.delete(consoleSessions).where(lt(consoleSessions.expiresAt, now)),
    db.delete(consoleSignInFailures).where(lt(consoleSignInFailures.minute, minute - 1)),
    db.insert(consoleSessions).values({ idHash, expiresAt }),
  ]);
}

export function deleteSession(db: Database, idHash: string) {
  return db.delete(consoleSessions).where(eq(consoleSessions.idHash, idHash));
}

/** How many wrong tries `client` made in `minute` and in the minute before it: one query. */
export async function failuresAround(db: Database, client: string, minute: number): Promise<{ current: number; previous: number }> {
  const rows = await db
    .select({ minute: consoleSignInFailures.minute, count: consoleSignInFailures.count })
    .from(consoleSignInFailures)
    .where(and(eq(consoleSignInFailures.client, client), inArray(consoleSignInFailures.minute, [minute - 1, minute])));
  const countOf = (m: number) => rows.find((row) => row.minute === m)?.count ?? 0;
  return { current: countOf(minute), previous: countOf(minute - 1) };
}

/** Counts one more wrong try of `client` in `minute`. */
export function recordFailure(db: Database, client: string, minute: number) {
  return db
    .insert(consoleSignInFailures)
    .values({ client, minute, count: 1 })
    .onConflictDoUpdate({
      target: [consoleSignInFailures.client, consoleSignInFailures.minute],
      set: { count: sql`${consoleSignInFailures.count} + 1` },
    });
}
