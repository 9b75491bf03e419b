import { customerNotFound } from "../customers/not-found";
import type { Database } from "../db/client";
import { ApiError } from "../http/errors";
import { randomAlphanumeric } from "../lib/crypto";
import { readOnlyProblem } from "../lib/sql-read-only";
import { canonicalLocaleKey } from "../view/translations";
import * as customersRepo from "../customers/repository";
import * as adminRepo from "../admin/repository";
import * as repo from "./repository";
import type { StoredTable, TableInput } from "./schemas";

export interface BlueprintScope {
  db: Database;
  accessGroupId: number;
}

/** Tables as stored and returned: every default filled in (docs/api-contract.md, "Blueprints"). */
export function withDefaults(tables: TableInput[]): StoredTable[] {
  return tables.map((table) => ({
    table_name: table.table_name,
    schema_id: table.schema_id,
    query: table.query ?? `SELECT * FROM "${table.table_name.replaceAll('"', '""')}"`,
    columns: table.columns.map((column) => ({
      name: column.name,
      type: column.type,
      display_name: column.display_name ?? column.name,
      can_be_grouped: column.can_be_grouped ?? true,
    })),
    dataset_name: table.dataset_name ?? table.table_name,
    description: table.description ?? null,
    // Kept only when given: tables stored and read back without it keep their shape.
    ...(table.cache_ttl_seconds !== undefined ? { cache_ttl_seconds: table.cache_ttl_seconds } : {}),
    ...(table.translations !== undefined
      ? {
          translations: Object.fromEntries(
            Object.entries(table.translations).map(([locale, texts]) => [canonicalLocaleKey(locale) ?? locale, texts]),
          ),
        }
      : {}),
  }));
}

/** 422 unknown_schema naming the first table whose schema does not exist. */
function checkSchemas(tables: TableInput[], found: { id: number }[]): void {
  const known = new Set(found.map((s) => s.id));
  const index = tables.findIndex((table) => !known.has(table.schema_id));
  if (index >= 0) {
    throw new ApiError("unknown_schema", `Schema ${tables[index].schema_id} does not exist.`, `tables.${index}.schema_id`);
  }
}

const schemaIds = (tables: TableInput[]) => [...new Set(tables.map((t) => t.schema_id))];

/** 422 query_not_read_only naming the first table whose own query is not one read-only statement. */
function checkQueries(tables: TableInput[]): void {
  tables.forEach((table, index) => {
    const problem = table.query == null ? null : readOnlyProblem(table.query);
    if (problem)
      throw new ApiError(
        "query_not_read_only",
        `The query of table '${table.table_name}' is not a read-only query: ${problem}.`,
        `tables.${index}.query`,
      );
  });
}

function blueprintNotFound(id: number): ApiError {
  return new ApiError("blueprint_not_found", `Blueprint ${id} does not exist.`, "blueprint_id");
}

export async function createBlueprint(
  scope: BlueprintScope,
  input: { customer_id: string; blueprint_name: string; tables: TableInput[] },
): Promise<number> {
  const { db } = scope;
  const [customer, schemas] = await db.batch([
    customersRepo.visibleCustomerId(db, input.customer_id, scope.accessGroupId),
    adminRepo.existingSchemas(db, schemaIds(input.tables)),
  ]);
  if (customer.length === 0) throw customerNotFound(input.customer_id, "customer_id");
  checkSchemas(input.tables, schemas);
  checkQueries(input.tables);
  const [created] = await repo.insertBlueprint(db, {
    embedId: randomAlphanumeric(20),
    name: input.blueprint_name,
    customerId: customer[0].id,
    tables: withDefaults(input.tables),
  });
  return created.id;
}

/** Replaces all tables of the blueprint. */
export async function updateBlueprint(scope: BlueprintScope, input: { blueprint_id: number; tables: TableInput[] }): Promise<void> {
  const { db } = scope;
  const [blueprint, schemas] = await db.batch([
    repo.visibleBlueprint(db, input.blueprint_id, scope.accessGroupId),
    adminRepo.existingSchemas(db, schemaIds(input.tables)),
  ]);
  if (blueprint.length === 0) throw blueprintNotFound(input.blueprint_id);
  checkSchemas(input.tables, schemas);
  checkQueries(input.tables);
  await repo.replaceTables(db, input.blueprint_id, withDefaults(input.tables));
}

export async function listCustomerBlueprints(scope: BlueprintScope, providedId: string) {
  const { db } = scope;
  const [customer, blueprints] = await db.batch([
    customersRepo.visibleCustomerId(db, providedId, scope.accessGroupId),
    repo.customerBlueprints(db, providedId, scope.accessGroupId),
  ]);
  if (customer.length === 0) throw customerNotFound(providedId, "customer_id");
  return blueprints.map((b) => ({ id: b.id, embed_id: b.embedId, name: b.name }));
}

export async function getBlueprint(scope: BlueprintScope, id: number) {
  const [row] = await repo.visibleBlueprint(scope.db, id, scope.accessGroupId);
  if (!row) throw blueprintNotFound(id);
  return { id: row.id, embed_id: row.embedId, name: row.name, customer_id: row.customerProvidedId, tables: row.tables };
}
