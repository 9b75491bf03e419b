import { sql } from "drizzle-orm";

// Timestamps are stored as ISO 8601 UTC text with milliseconds ("2026-11-22T05:43:10.123Z"),
// so they sort as text and read as JavaScript dates. This is the one SQL expression for them.
const ISO_UTC = "%Y-%m-%dT%H:%M:%fZ";

/** The current time, in the stored form. */
export const sqlNow = sql.raw(`strftime('${ISO_UTC}', 'now')`);

/** `seconds` before the current time, in the stored form. */
export function sqlSecondsAgo(seconds: number) {
  return sql`strftime(${sql.raw(`'${ISO_UTC}'`)}, 'now', ${`-${Math.max(0, Math.floor(seconds))} seconds`})`;
}

/** `seconds` after the current time, in the stored form. */
export function sqlSecondsFromNow(seconds: number) {
  return sql`strftime(${sql.raw(`'${ISO_UTC}'`)}, 'now', ${`+${Math.max(0, Math.floor(seconds))} seconds`})`;
}
