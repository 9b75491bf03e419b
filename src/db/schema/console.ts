import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

// The vendor's console (migration 0020, written by hand): its sign-in sessions and the
// sign-in form's wrong tries.

/** A signed-in console: the SHA-256 of the cookie's random id; deleted by signing out. */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    expiresAt: text("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("console_sessions_expires_at").on(t.expiresAt)],
);

/** Wrong admin tokens given to the sign-in form, per client and minute (Unix minutes). */
export const consoleSignInFailures = sqliteTable(
  "console_sign_in_failures",
  {
    client: text("client").notNull(),
    minute: integer("minute").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.client, t.minute] })],
);
