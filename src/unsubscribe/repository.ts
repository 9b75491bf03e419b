import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { customers, reportSchedules, scheduleUnsubscribes, themes, unsubscribeTokens } from "../db/schema";

/** Data access for unsubscribe links; unexecuted queries, so callers can batch them. */

/** Records links' hashes for (rule, address); existing ones are kept (a token is derived, so it is the same). */
export function insertTokens(db: Database, rows: { tokenHash: string; scheduleId: string; email: string }[]) {
  return db.insert(unsubscribeTokens).values(rows).onConflictDoNothing();
}

/** The theme the page of a link wears: the rule's, else its customer's own, else the access group's default. */
const pageThemeId = sql`coalesce(${reportSchedules.themeId}, ${customers.themeId}, (SELECT d.id FROM ${themes} d WHERE d.access_group_id = ${reportSchedules.accessGroupId} AND d.is_default = 1))`;

/** What a link stops: the address, and its rule's kind and description (for the page). */
export function tokenByHash(db: Database, tokenHash: string) {
  return db
    .select({
      scheduleId: unsubscribeTokens.scheduleId,
      email: unsubscribeTokens.email,
      kind: reportSchedules.kind,
      subject: reportSchedules.subject,
      dashboardEmbedId: reportSchedules.dashboardEmbedId,
      // The page speaks the rule's locale, else its customer's own.
      locale: sql<string | null>`coalesce(${reportSchedules.locale}, ${customers.locale})`,
      // …and wears the rule's theme, else its customer's own, else the access group's default.
      themeName: sql<string | null>`(SELECT ${themes.name} FROM ${themes} WHERE ${themes.id} = ${pageThemeId})`.as("theme_name"),
      themeDocument: sql<string | null>`(SELECT ${themes.document} FROM ${themes} WHERE ${themes.id} = ${pageThemeId})`.as(
        "theme_document",
      ),
    })
    .from(unsubscribeTokens)
    .innerJoin(reportSchedules, eq(reportSchedules.id, unsubscribeTokens.scheduleId))
    .leftJoin(customers, eq(customers.id, reportSchedules.customerId))
    .where(eq(unsubscribeTokens.tokenHash, tokenHash));
}

/** Whether the link's address has already left its rule. */
export function isUnsubscribedThrough(db: Database, tokenHash: string) {
  return db
    .select({ email: scheduleUnsubscribes.email })
    .from(unsubscribeTokens)
    .innerJoin(
      scheduleUnsubscribes,
      and(eq(scheduleUnsubscribes.scheduleId, unsubscribeTokens.scheduleId), eq(scheduleUnsubscribes.email, unsubscribeTokens.email)),
    )
    .where(eq(unsubscribeTokens.tokenHash, tokenHash));
}

/**
 * Removes the address from the link's rule for good: an insert through the link's own row,
 * so an unknown (or deleted) link inserts nothing; pressing twice keeps the first.
 */
export function unsubscribeThrough(db: Database, tokenHash: string) {
  // Raw: an INSERT … SELECT, and drizzle's insert-select must list every column, defaults included.
  return db.run(sql`
    INSERT INTO schedule_unsubscribes (schedule_id, email)
    SELECT schedule_id, email FROM unsubscribe_tokens WHERE token_hash = ${tokenHash}
    ON CONFLICT DO NOTHING`);
}

/** The addresses that left a rule, oldest first. */
export function unsubscribedOf(db: Database, scheduleId: string) {
  return db
    .select({ email: scheduleUnsubscribes.email })
    .from(scheduleUnsubscribes)
    .where(eq(scheduleUnsubscribes.scheduleId, scheduleId))
    .orderBy(asc(scheduleUnsubscribes.createdAt), asc(scheduleUnsubscribes.email));
}
