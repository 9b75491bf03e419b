import type { Database } from "../db/client";
import * as repo from "./repository";
import { hashUnsubscribeToken, UNSUBSCRIBE_TOKEN } from "./tokens";

/** What an unsubscribe link stops, as its page shows it. */
export interface UnsubscribeLink {
  email: string;
  /** "the scheduled report …" or "the alert …", for the page's sentence. */
  rule: string;
  unsubscribed: boolean;
}

function describeRule(row: { kind: string; subject: string | null; dashboardEmbedId: string }): string {
  const what = row.kind === "alert" ? "alert" : "scheduled report";
  return row.subject ? `the ${what} “${row.subject}”` : `the ${what} of dashboard “${row.dashboardEmbedId}”`;
}

/** The link's rule and address (nothing changes); null for an unknown token or a rule that is gone. */
export async function lookUpLink(db: Database, token: string): Promise<UnsubscribeLink | null> {
  if (!UNSUBSCRIBE_TOKEN.test(token)) return null;
  const hash = await hashUnsubscribeToken(token);
  const [[row], done] = await db.batch([repo.tokenByHash(db, hash), repo.isUnsubscribedThrough(db, hash)]);
  if (!row) return null;
  return { email: row.email, rule: describeRule(row), unsubscribed: done.length > 0 };
}

/**
 * Removes the link's address from its rule for good (repeating it changes nothing more);
 * null for an unknown token. One D1 round trip: the insert goes through the link's row.
 */
export async function unsubscribe(db: Database, token: string): Promise<UnsubscribeLink | null> {
  if (!UNSUBSCRIBE_TOKEN.test(token)) return null;
  const hash = await hashUnsubscribeToken(token);
  const [, [row]] = await db.batch([repo.unsubscribeThrough(db, hash), repo.tokenByHash(db, hash)]);
  if (!row) return null;
  return { email: row.email, rule: describeRule(row), unsubscribed: true };
}
