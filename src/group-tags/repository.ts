import { and, asc, eq, not, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { customerGroupTags, customers, groupTags, reportSchedules } from "../db/schema";
import { anyOf } from "../db/conditions";

/** Tag names are unique case-insensitively: `name_key` is the lower-cased name. */
export const tagKey = (name: string) => name.toLowerCase();

export function insertGroupTag(db: Database, name: string) {
  return db
    .insert(groupTags)
    .values({ name, nameKey: tagKey(name) })
    .onConflictDoNothing({ target: groupTags.nameKey })
    .returning({ name: groupTags.name });
}

export function listGroupTags(db: Database) {
  return db.select({ name: groupTags.name }).from(groupTags).orderBy(asc(groupTags.nameKey), asc(groupTags.name));
}

export function groupTagByKey(db: Database, key: string) {
  return db.select({ id: groupTags.id, name: groupTags.name }).from(groupTags).where(eq(groupTags.nameKey, key));
}

/**
 * Everything that holds or targets a group tag, each with the access group it belongs to: a
 * tag used by another access group may not be renamed or deleted from under it. A new kind of
 * tag user (another kind of rule targeting tags) adds its line here.
 */
const tagUsers = (tagId: SQLiteColumn | number, accessGroupId: number): SQL[] => [
  // Customers of another access group holding the tag.
  sql`EXISTS (SELECT 1 FROM ${customerGroupTags} JOIN ${customers} ON ${customers.id} = ${customerGroupTags.customerId}
       WHERE ${customerGroupTags.groupTagId} = ${tagId} AND ${customers.accessGroupId} <> ${accessGroupId})`,
  // Schedules and alerts (both report_schedules rows) of another access group targeting it.
  sql`EXISTS (SELECT 1 FROM ${reportSchedules}
       WHERE ${reportSchedules.groupTagId} = ${tagId} AND ${reportSchedules.accessGroupId} <> ${accessGroupId})`,
];

/** True when another access group uses the tag (see `tagUsers`). */
export const usedElsewhere = (tagId: SQLiteColumn | number, accessGroupId: number): SQL => anyOf(...tagUsers(tagId, accessGroupId));

/** The tag by key, with whether another access group uses it. */
export function groupTagUsage(db: Database, key: string, accessGroupId: number) {
  return db
    .select({
      id: groupTags.id,
      name: groupTags.name,
      usedElsewhere: sql<number>`${usedElsewhere(groupTags.id, accessGroupId)}`.as("used_elsewhere"),
    })
    .from(groupTags)
    .where(eq(groupTags.nameKey, key));
}

/** Renames unless another access group uses the tag by then (checked in the same statement). */
export function renameGroupTag(db: Database, id: number, newName: string, accessGroupId: number) {
  return db
    .update(groupTags)
    .set({ name: newName, nameKey: tagKey(newName) })
    .where(and(eq(groupTags.id, id), not(usedElsewhere(groupTags.id, accessGroupId))))
    .returning({ name: groupTags.name });
}

/** Assignments to customers cascade with the tag; never while another access group uses it. */
export function deleteGroupTag(db: Database, key: string, accessGroupId: number) {
  return db
    .delete(groupTags)
    .where(and(eq(groupTags.nameKey, key), not(usedElsewhere(groupTags.id, accessGroupId))))
    .returning({ id: groupTags.id });
}
