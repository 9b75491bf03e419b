import { batchLists } from "../db/batch";
import type { Database } from "../db/client";
import type { Env } from "../env";
import { isAbove } from "../customers/hierarchy";
import { revokeTokenLeases } from "../http/auth";
import { bindingProblem, type DataSourceKind } from "../data/sources/kinds";
import {
  connectionInfo,
  connectionToStore,
  type ConnectionInfo,
  type ConnectionInput,
  type StoredConnection,
} from "../data/sources/clickhouse-connection";
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
  await batchLists(db, [writes]);
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

export interface DataSourceInfo {
  id: number;
  provided_id: string | null;
  name: string;
  /** null for ClickHouse (reached over its `connection`). */
  binding: string | null;
  kind: DataSourceKind;
  /** ClickHouse's server, the password only as `password_set`; null for the other kinds. */
  connection: ConnectionInfo | null;
  /** The PostgreSQL schema or MySQL database its panels read; null = the binding's own. */
  namespace: string | null;
  /** The access groups whose customers may use it; null = every access group. */
  access_groups: string[] | null;
}

type DataSourceRow = Awaited<ReturnType<typeof repo.listDataSources>>[number];

function dataSourceInfo(row: DataSourceRow, groups: { id: number; name: string }[]): DataSourceInfo {
  const { accessGroupIds: allowed, connection, binding, ...rest } = row;
  return {
    ...rest,
    binding: row.kind === "clickhouse" ? null : binding,
    connection: connection ? connectionInfo(connection) : null,
    access_groups: allowed === null ? null : groups.filter((g) => allowed.includes(g.id)).map((g) => g.name),
  };
}

/** The ClickHouse connection to store, or the refusal: 400 on its field, 503 data_source_key_missing without the sealing key. */
async function storableConnection(env: Env, input: ConnectionInput, previous?: StoredConnection | null): Promise<StoredConnection> {
  const stored = await connectionToStore(env, input, previous);
  if ("field" in stored)
    throw new ApiError(stored.keyMissing ? "data_source_key_missing" : "validation_error", stored.message, stored.field);
  return stored;
}

/**
 * Access group names → the stored list (ids, ordered, no duplicates); null stays null (every
 * access group). 404 access_group_not_found names the first unknown one.
 */
function accessGroupList(names: string[] | null | undefined, found: { id: number; nameKey: string }[]): number[] | null {
  if (names === null || names === undefined) return null;
  const byKey = new Map(found.map((g) => [g.nameKey, g.id]));
  const ids: number[] = [];
  names.forEach((name, index) => {
    const id = byKey.get(repo.nameKey(name));
    if (id === undefined) throw new ApiError("access_group_not_found", `Access group '${name}' does not exist.`, `access_groups.${index}`);
    if (!ids.includes(id)) ids.push(id);
  });
  return ids.sort((a, b) => a - b);
}

/** D1 databases have no schemas or databases inside them to choose from. (ClickHouse's namespace is the request's database.) */
function namespaceProblem(kind: DataSourceKind, namespace: string | null | undefined): void {
  if (kind === "d1" && namespace !== undefined && namespace !== null)
    throw new ApiError(
      "validation_error",
      "namespace: a D1 data source has no namespaces (PostgreSQL, MySQL and ClickHouse sources do).",
      "namespace",
    );
}

export async function createDataSource(
  db: Database,
  env: Env,
  input: {
    name: string;
    binding?: string;
    kind?: DataSourceKind;
    connection?: ConnectionInput;
    namespace?: string | null;
    provided_id?: string;
    access_groups?: string[] | null;
  },
): Promise<DataSourceInfo> {
  const kind = input.kind ?? "d1";
  if (kind === "clickhouse") {
    if (input.binding !== undefined)
      throw new ApiError("validation_error", "binding: a ClickHouse data source has no binding; give `connection`.", "binding");
    if (!input.connection) throw new ApiError("validation_error", "connection: required for a ClickHouse data source.", "connection");
  } else {
    if (input.connection !== undefined)
      throw new ApiError(
        "validation_error",
        "connection: only a ClickHouse data source has one; the others name a `binding`.",
        "connection",
      );
    if (input.binding === undefined) throw new ApiError("validation_error", "binding: required for this kind of data source.", "binding");
    const problem = bindingProblem(env, kind, input.binding);
    if (problem) throw new ApiError("validation_error", problem, "binding");
  }
  namespaceProblem(kind, input.namespace);
  const [found, groups] = await db.batch([repo.accessGroupsByNames(db, input.access_groups ?? []), repo.accessGroupNames(db)]);
  const accessGroupIds = accessGroupList(input.access_groups, found);
  // Checked and sealed last: nothing is stored when any other field is refused.
  const connection = kind === "clickhouse" ? await storableConnection(env, input.connection ?? {}) : null;
  const [created] = await repo.insertDataSource(db, {
    name: input.name,
    binding: input.binding ?? "",
    kind,
    connection,
    namespace: input.namespace ?? null,
    providedId: input.provided_id ?? null,
    accessGroupIds,
  });
  if (!created)
    throw new ApiError("data_source_exists", `A data source with provided_id '${input.provided_id}' already exists.`, "provided_id");
  return dataSourceInfo(created, groups);
}

/**
 * Changes a data source (by `id` or `provided_id`): any of its name, namespace, which access
 * groups may use it (null: every access group) and a ClickHouse source's connection (a new
 * password replaces the stored one, an absent one keeps it); what is not given stays.
 */
export async function updateDataSource(
  db: Database,
  env: Env,
  input: {
    id?: number;
    provided_id?: string;
    name?: string;
    namespace?: string | null;
    access_groups?: string[] | null;
    connection?: ConnectionInput;
  },
): Promise<DataSourceInfo> {
  if ((input.id === undefined) === (input.provided_id === undefined))
    throw new ApiError("validation_error", "id: give exactly one of id and provided_id.", "id");
  if (input.name === undefined && input.namespace === undefined && input.access_groups === undefined && input.connection === undefined)
    throw new ApiError(
      "validation_error",
      "access_groups: give at least one of name, namespace, access_groups and connection.",
      "access_groups",
    );
  const [found, groups, sources] = await db.batch([
    repo.accessGroupsByNames(db, input.access_groups ?? []),
    repo.accessGroupNames(db),
    repo.listDataSources(db),
  ]);
  const source = sources.find((s) => (input.id !== undefined ? s.id === input.id : s.provided_id === input.provided_id));
  const which = input.id !== undefined ? `${input.id}` : `'${input.provided_id}'`;
  const field = input.id !== undefined ? "id" : "provided_id";
  if (!source) throw new ApiError("data_source_not_found", `Data source ${which} does not exist.`, field);
  namespaceProblem(source.kind, input.namespace);
  if (input.connection !== undefined && source.kind !== "clickhouse")
    throw new ApiError("validation_error", "connection: only a ClickHouse data source has one.", "connection");
  const accessGroupIds = input.access_groups !== undefined ? accessGroupList(input.access_groups, found) : undefined;
  const connection = input.connection !== undefined ? await storableConnection(env, input.connection, source.connection) : undefined;
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(connection !== undefined ? { connection } : {}),
    ...(input.namespace !== undefined ? { namespace: input.namespace } : {}),
    ...(accessGroupIds !== undefined ? { accessGroupIds } : {}),
  };
  const [updated] = Object.keys(changes).length > 0 ? await repo.updateDataSource(db, source.id, changes) : [source];
  if (!updated) throw new ApiError("data_source_not_found", `Data source ${which} does not exist.`, field);
  return dataSourceInfo(updated, groups);
}

export async function listDataSources(db: Database): Promise<DataSourceInfo[]> {
  const [sources, groups] = await db.batch([repo.listDataSources(db), repo.accessGroupNames(db)]);
  return sources.map((source) => dataSourceInfo(source, groups));
}
