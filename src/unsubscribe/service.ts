import { type Translator, translator } from "../view/messages";
import type { Database } from "../db/client";
import * as repo from "./repository";
import { hashUnsubscribeToken, UNSUBSCRIBE_TOKEN } from "./tokens";
import type { ThemeDocument } from "../view/presentation";

/** What an unsubscribe link stops, as its page shows it. */
export interface UnsubscribeLink {
  email: string;
  /** "the scheduled report …" or "the alert …" in the link's language, for the page's sentence. */
  rule: string;
  unsubscribed: boolean;
  /** The rule's locale, else its customer's (the page speaks it). */
  locale: string;
  /** The rule's theme, else its customer's own, else the group's default (null: built-in). */
  theme?: { name: string; document: ThemeDocument } | null;
}

function describeRule(row: { kind: string; subject: string | null; dashboardEmbedId: string }, t: Translator): string {
  const alert = row.kind === "alert";
  if (row.subject) return t(alert ? "unsubscribe.rule_alert" : "unsubscribe.rule_report", { name: row.subject });
  return t(alert ? "unsubscribe.rule_alert_of" : "unsubscribe.rule_report_of", { name: row.dashboardEmbedId });
}

function linkOf(
  row: {
    email: string;
    kind: string;
    subject: string | null;
    dashboardEmbedId: string;
    locale: string | null;
    themeName: string | null;
    themeDocument: string | null;
  },
  unsubscribed: boolean,
): UnsubscribeLink {
  const locale = row.locale ?? "en-US";
  const theme =
    row.themeName !== null && row.themeDocument !== null
      ? { name: row.themeName, document: JSON.parse(row.themeDocument) as ThemeDocument }
      : null;
  return { email: row.email, rule: describeRule(row, translator(locale)), unsubscribed, locale, theme };
}

/** The link's rule and address (nothing changes); null for an unknown token or a rule that is gone. */
export async function lookUpLink(db: Database, token: string): Promise<UnsubscribeLink | null> {
  if (!UNSUBSCRIBE_TOKEN.test(token)) return null;
  const hash = await hashUnsubscribeToken(token);
  const [[row], done] = await db.batch([repo.tokenByHash(db, hash), repo.isUnsubscribedThrough(db, hash)]);
  if (!row) return null;
  return linkOf(row, done.length > 0);
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
  return linkOf(row, true);
}
