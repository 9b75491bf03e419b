import type { Database } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { ApiError } from "../http/errors";
import * as repo from "./repository";

export interface GroupTag {
  name: string;
}

function exists(name: string, field: string): ApiError {
  return new ApiError("group_tag_exists", `A group tag named '${name}' already exists.`, field);
}

function notFound(name: string): ApiError {
  return new ApiError("group_tag_not_found", `Group tag '${name}' does not exist.`, "name");
}

export async function createGroupTag(db: Database, name: string): Promise<GroupTag> {
  const [created] = await repo.insertGroupTag(db, name);
  if (!created) throw exists(name, "name");
  return created;
}

export function listGroupTags(db: Database): Promise<GroupTag[]> {
  return repo.listGroupTags(db);
}

function inUseElsewhere(name: string): ApiError {
  return new ApiError(
    "group_tag_in_use_elsewhere",
    `Group tag '${name}' is used by customers, schedules or alerts of another access group; it can only be renamed or deleted once they no longer use it.`,
    "name",
  );
}

/**
 * Customers keep the tag under its new name; a change of case only is allowed. Tags are
 * workspace-wide: refused (409 group_tag_in_use_elsewhere) while another access group uses it.
 */
export async function renameGroupTag(db: Database, accessGroupId: number, name: string, newName: string): Promise<GroupTag> {
  const [[tag], [clash]] = await db.batch([
    repo.groupTagUsage(db, repo.tagKey(name), accessGroupId),
    repo.groupTagByKey(db, repo.tagKey(newName)),
  ]);
  if (!tag) throw notFound(name);
  if (clash && clash.id !== tag.id) throw exists(newName, "new_name");
  if (tag.usedElsewhere) throw inUseElsewhere(tag.name);
  try {
    const [renamed] = await repo.renameGroupTag(db, tag.id, newName, accessGroupId);
    if (renamed) return renamed;
  } catch (error) {
    if (isUniqueViolation(error)) throw exists(newName, "new_name");
    throw error;
  }
  // Gone, or taken up by another access group, since the first read.
  const [after] = await repo.groupTagUsage(db, repo.tagKey(name), accessGroupId);
  throw after ? inUseElsewhere(after.name) : notFound(name);
}

/** Removes the tag from every customer; refused while another access group uses it. */
export async function deleteGroupTag(db: Database, accessGroupId: number, name: string): Promise<void> {
  const [deleted, [tag]] = await db.batch([
    repo.deleteGroupTag(db, repo.tagKey(name), accessGroupId),
    repo.groupTagUsage(db, repo.tagKey(name), accessGroupId),
  ]);
  if (deleted.length > 0) return;
  throw tag ? inUseElsewhere(tag.name) : notFound(name);
}
