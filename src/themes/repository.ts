import { and, asc, eq, ne, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../db/client";
import { customers, reportSchedules, themes } from "../db/schema";
import { parsedRows } from "../db/rows";
import { sqlNow } from "../db/time";
import type { ThemeDocument } from "../view/presentation";

// Themes of an access group. Every function returns an unexecuted query, for one db.batch.

/** Theme names are unique per access group case-insensitively: `name_key` is the lower-cased name. */
export const themeKey = (name: string) => name.toLowerCase();

const columns = {
  id: themes.id,
  name: themes.name,
  isDefault: themes.isDefault,
  document: themes.document,
  createdAt: themes.createdAt,
  updatedAt: themes.updatedAt,
};
export type ThemeRecord = { id: number; name: string; isDefault: boolean; document: ThemeDocument; createdAt: string; updatedAt: string };

export function themesOfGroup(db: Database, accessGroupId: number) {
  return db.select(columns).from(themes).where(eq(themes.accessGroupId, accessGroupId)).orderBy(asc(themes.nameKey), asc(themes.name));
}

export function themeByName(db: Database, accessGroupId: number, name: string) {
  return db
    .select(columns)
    .from(themes)
    .where(and(eq(themes.accessGroupId, accessGroupId), eq(themes.nameKey, themeKey(name))));
}

/** The themes of the access group of the customer matched by `customerWhere` (what a view resolves its theme among). */
export function themesOfCustomerGroup(db: Database, customerWhere: SQL) {
  return db
    .select(columns)
    .from(themes)
    .where(eq(themes.accessGroupId, sql`(SELECT ${customers.accessGroupId} FROM ${customers} WHERE ${customerWhere})`));
}

/**
 * Takes the default from the group's other themes — only if the theme `keepKey` will exist
 * after the batch (`mustExist`), so a refused insert or update leaves the default where it was.
 */
export function clearOtherDefaults(db: Database, accessGroupId: number, keepKey: string, mustExist: "new" | "existing") {
  const target = sql`SELECT 1 FROM ${themes} WHERE ${themes.accessGroupId} = ${accessGroupId} AND ${themes.nameKey} = ${keepKey}`;
  return db
    .update(themes)
    .set({ isDefault: false, updatedAt: sqlNow })
    .where(
      and(
        eq(themes.accessGroupId, accessGroupId),
        eq(themes.isDefault, true),
        ne(themes.nameKey, keepKey),
        mustExist === "new" ? sql`NOT EXISTS (${target})` : sql`EXISTS (${target})`,
      ),
    );
}

export function insertTheme(db: Database, row: { accessGroupId: number; name: string; isDefault: boolean; document: ThemeDocument }) {
  return db
    .insert(themes)
    .values({ ...row, nameKey: themeKey(row.name) })
    .onConflictDoNothing({ target: [themes.accessGroupId, themes.nameKey] })
    .returning(columns);
}

export function updateTheme(
  db: Database,
  accessGroupId: number,
  name: string,
  changes: { name?: string; isDefault?: boolean; document?: ThemeDocument },
) {
  return db
    .update(themes)
    .set({
      ...changes,
      ...(changes.name !== undefined ? { nameKey: themeKey(changes.name) } : {}),
      updatedAt: sqlNow,
    })
    .where(and(eq(themes.accessGroupId, accessGroupId), eq(themes.nameKey, themeKey(name))))
    .returning(columns);
}

/** Whether a customer, schedule, alert or subscription names the theme. */
const inUse = (themeId: SQL | number) =>
  sql`(EXISTS (SELECT 1 FROM ${customers} WHERE ${customers.themeId} = ${themeId})
       OR EXISTS (SELECT 1 FROM ${reportSchedules} WHERE ${reportSchedules.themeId} = ${themeId}))`;

/** Deletes the theme unless something names it; the second query tells which case it was. */
export function deleteUnusedTheme(db: Database, accessGroupId: number, name: string) {
  return db
    .delete(themes)
    .where(and(eq(themes.accessGroupId, accessGroupId), eq(themes.nameKey, themeKey(name)), sql`NOT ${inUse(sql`${themes.id}`)}`))
    .returning({ id: themes.id });
}

/** The most themes an access group may have; the migration's trigger refuses the insert past it. */
export const MAX_THEMES_PER_ACCESS_GROUP = 50;

/**
 * Which of these asset hashes a theme of any access group still names (assets are shared by
 * content across groups). The hash is 64 hex characters, so finding it in a document's JSON
 * text cannot match anything else.
 */
export function assetsInUse(db: Database, sha256s: string[]) {
  return parsedRows(
    db,
    sql`SELECT value AS sha256 FROM json_each(${JSON.stringify(sha256s)})
        WHERE EXISTS (SELECT 1 FROM ${themes} WHERE instr(${themes.document}, value) > 0)`,
    z.object({ sha256: z.string() }),
  );
}
