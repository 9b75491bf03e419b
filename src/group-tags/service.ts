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

/** Customers keep the tag under its new name; a change of case only is allowed. */
export async function renameGroupTag(db: Database, name: string, newName: string): Promise<GroupTag> {
  const [[tag], [clash]] = await db.batch([repo.groupTagByKey(db, repo.tagKey(name)), repo.groupTagByKey(db, repo.tagKey(newName))]);
  if (!tag) throw notFound(name);
  if (clash && clash.id !== tag.id) throw exists(newName, "new_name");
  try {
    const [renamed] = await repo.renameGroupTag(db, tag.id, newName);
    if (!renamed) throw notFound(name);
    return renamed;
  } catch (error) {
    if (isUniqueViolation(error)) throw exists(newName, "new_name");
    throw error;
  }
}

export async function deleteGroupTag(db: Database, name: string): Promise<void> {
  const deleted = await repo.deleteGroupTag(db, repo.tagKey(name));
  if (deleted.length === 0) throw notFound(name);
}
