import { sql } from "drizzle-orm";

// Timestamps are stored as ISO 8601 UTC text with milliseconds ("2026-11-22T05:43:10.123Z"),
// so they sort as text and read as JavaScript dates. This is the one SQL expression for them.
const ISO_UTC = "%Y-%m-%dT%H:%M:%fZ";

/** The current time, in the stored form. */
export const sqlNow = sql.raw(`strftime('${ISO_UTC}', 'now')`);

/** The current time shifted by whole seconds (a SQLite modifier, bound), in the stored form. */
function sqlShiftedNow(sign: "+" | "-", seconds: number) {
  return sql`strftime(${sql.raw(`'${ISO_UTC}'`)}, 'now', ${`${sign}${Math.max(0, Math.floor(seconds))} seconds`})`;
}

/** `seconds` before the current time, in the stored form. */
export function sqlSecondsAgo(seconds: number) {
  return sqlShiftedNow("-", seconds);
}

/** `seconds` after the current time, in the stored form. */
export function sqlSecondsFromNow(seconds: number) {
  return sqlShiftedNow("+", seconds);
}
