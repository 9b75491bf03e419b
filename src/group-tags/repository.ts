import { asc, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { groupTags } from "../db/schema";

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

export function renameGroupTag(db: Database, id: number, newName: string) {
  return db
    .update(groupTags)
    .set({ name: newName, nameKey: tagKey(newName) })
    .where(eq(groupTags.id, id))
    .returning({ name: groupTags.name });
}

/** Assignments to customers cascade with the tag. */
export function deleteGroupTag(db: Database, key: string) {
  return db.delete(groupTags).where(eq(groupTags.nameKey, key)).returning({ id: groupTags.id });
}
