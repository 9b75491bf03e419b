import type { Database } from "../db/client";
import type { Env } from "../env";
import { isAbove } from "../customers/hierarchy";
import { revokeTokenLeases } from "../http/auth";
import { bindingProblem, type DataSourceKind } from "../dashboards/sources/kinds";
import { ApiError } from "../http/errors";
import { randomAlphanumeric, randomHex, sha256Hex } from "../lib/crypto";
import * as repo from "./repository";

// ---- access groups ----------------------------------------------------------------------
export async function createAccessGroup(db: Database, name: string): Promise<{ name: string }> {
  const [created] = await repo.insertAccessGroup(db, name);
  if (!created) throw new ApiError("access_group_exists", `An access group named '${name}' already exists.`, "name");
  return { name: created.name };
}

export function listAccessGroups(db: Database): Promise<{ name: string }[]> {
  return repo.listAccessGroups(db);
}

// ---- API tokens -------------------------------------------------------------------------
export interface ApiTokenInfo {
  id: string;
  name: string;
  access_group: string;
  permission: "read" | "write";
}

/** A token is 256 random bits, shown once; only its SHA-256 is stored. */
export async function createApiToken(
  db: Database,
  input: { access_group: string; permission: "read" | "write"; name?: string },
): Promise<{ api_token: ApiTokenInfo; token: string }> {
  const [group] = await repo.accessGroupByName(db, input.access_group);
  if (!group) throw new ApiError("access_group_not_found", `Access group '${input.access_group}' does not exist.`, "access_group");
  const token = `cdk_${randomHex(32)}`;
  const id = `tok_${randomAlphanumeric(16)}`;
  const name = input.name ?? `${group.name} ${input.permission} token`;
  await repo.insertApiToken(db, { id, name, accessGroupId: group.id, permission: input.permission, tokenHash: await sha256Hex(token) });
  return { api_token: { id, name, access_group: group.name, permission: input.permission }, token };
}

/** Revoking is idempotent; the token's guard refuses it at once, every isolate within a lease (5 s). */
export async function revokeApiToken(db: Database, env: Env, id: string): Promise<void> {
  const [[token]] = await db.batch([repo.apiTokenById(db, id), repo.revokeApiToken(db, id)]);
  if (!token) throw new ApiError("api_token_not_found", `API token '${id}' does not exist.`, "id");
  await revokeTokenLeases(env, token.tokenHash);
}

// ---- hierarchy levels -------------------------------------------------------------------
export async function getLevels(db: Database): Promise<string[]> {
  return (await repo.listLevels(db)).map((level) => level.name);
}

/**
 * Replaces the ordered list of levels (root first). Levels keep their identity by name, so
 * customers stay on their level; refused when a level with customers would disappear or a
 * parent would no longer be strictly above its child.
 */
export async function setLevels(db: Database, names: string[]): Promise<string[]> {
  const [current, usage, pairs] = await db.batch([repo.listLevels(db), repo.levelUsage(db), repo.parentLevelPairs(db)]);
  const newPosition = new Map(names.map((name, position) => [name, position]));
  const positionOfId = new Map(current.map((level) => [level.id, newPosition.get(level.name)]));
  const removed = current.filter((level) => !newPosition.has(level.name));

  for (const level of removed) {
    const used = usage.find((u) => u.levelId === level.id);
    if (used && used.customers > 0) {
      throw new ApiError("hierarchy_level_in_use", `Level '${level.name}' still has ${used.customers} customer(s).`, "levels");
    }
  }
  for (const pair of pairs) {
    const child = positionOfId.get(pair.childLevelId);
    const parent = positionOfId.get(pair.parentLevelId);
    if (child !== undefined && parent !== undefined && !isAbove(parent, child)) {
      throw new ApiError("hierarchy_level_in_use", "The new order would put a parent customer at or below one of its children.", "levels");
    }
  }

  const existing = new Map(current.map((level) => [level.name, level]));
  const writes = [
    ...removed.map((level) => repo.deleteLevel(db, level.id)),
    ...names.map((name, position) => {
      const level = existing.get(name);
      return level ? repo.moveLevel(db, level.id, position) : repo.insertLevel(db, name, position);
    }),
  ];
  await db.batch(writes as [(typeof writes)[number], ...(typeof writes)[number][]]);
  return names;
}

// ---- schemas and data sources -------------------------------------------------------------
export async function createSchema(db: Database, name: string): Promise<{ id: number; name: string }> {
  const [schema] = await repo.insertSchema(db, name);
  return schema;
}

export function listSchemas(db: Database) {
  return repo.listSchemas(db);
}

export async function createDataSource(
  db: Database,
  env: Env,
  input: { name: string; binding: string; kind?: DataSourceKind; provided_id?: string },
): Promise<{ id: number; provided_id: string | null; name: string; binding: string; kind: DataSourceKind }> {
  const kind = input.kind ?? "d1";
  const problem = bindingProblem(env, kind, input.binding);
  if (problem) throw new ApiError("validation_error", problem, "binding");
  const [created] = await repo.insertDataSource(db, { name: input.name, binding: input.binding, kind, providedId: input.provided_id ?? null });
  if (!created) throw new ApiError("data_source_exists", `A data source with provided_id '${input.provided_id}' already exists.`, "provided_id");
  return created;
}

export function listDataSources(db: Database) {
  return repo.listDataSources(db);
}
