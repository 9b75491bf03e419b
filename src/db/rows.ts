import type { Column, GetColumnData, SQL } from "drizzle-orm";
import type { SQLiteRaw } from "drizzle-orm/sqlite-core/query-builders/raw";
import { z } from "zod";
import type { Database } from "./client";

/**
 * A raw `sql` query's rows (what the builder cannot say: recursive CTEs, INSERT … SELECT …
 * RETURNING, json_each), parsed by `row` whether the query is awaited alone or sent in a
 * `db.batch`. D1 hands raw rows back as they come, unmapped: their shape is checked here
 * instead of asserted, so a changed query fails loudly at its own repository.
 */
export function parsedRows<T>(db: Database, query: SQL, row: z.ZodType<T>): SQLiteRaw<T[]> {
  const rows = z.array(row);
  const raw = db.all<T>(query);
  const execute = raw.execute;
  const mapResult = raw.mapResult.bind(raw);
  raw.execute = async () => rows.parse(await execute());
  raw.mapResult = (result, isFromBatch) => rows.parse(mapResult(result, isFromBatch));
  return raw;
}

/**
 * A raw row's field that holds a JSON column's text, decoded as the column itself decodes it
 * and typed as the schema types that column: what a builder select of it would give.
 */
export function jsonOf<C extends Column>(column: C) {
  // drizzle types a column's decoder loosely (unknown); its result is the column's data.
  return z.string().transform((text) => column.mapFromDriverValue(text) as GetColumnData<C, "raw">);
}

/** A raw row's field holding JSON text that SQL built (json_group_array, …), parsed and checked by `schema`. */
export function jsonText<T>(schema: z.ZodType<T>) {
  return z
    .string()
    .transform((text): unknown => JSON.parse(text))
    .pipe(schema);
}

/** SQLite's 0/1 for a boolean (raw rows are not mapped to booleans). */
export const sqliteFlag = z.union([z.literal(0), z.literal(1)]);
