import { env } from "cloudflare:test";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";

// The migrations are SQL written by hand (docs/architecture.md, "Migrations"); src/db/schema.ts
// is what the code queries with. This test holds them together: D1 as the migrations leave it
// (applied by the test setup, as `npm start` and deploys apply them) has exactly the tables of
// the schema, each with the schema's columns — name, type, nullability, primary key.

const DB = (env as unknown as { DB: D1Database }).DB;

interface Column {
  name: string;
  type: string;
  notNull: boolean;
  primaryKey: boolean;
}

/** Tables the runtime or SQLite keep for themselves, not the application's. */
const notOurs = (name: string) => name.startsWith("_cf_") || name.startsWith("sqlite_") || name === "d1_migrations";

const schemaTables = Object.values(schema as Record<string, unknown>).filter((value): value is SQLiteTable => is(value, SQLiteTable));

function schemaColumns(table: SQLiteTable): Column[] {
  const config = getTableConfig(table);
  const compositeKey = new Set(config.primaryKeys.flatMap((key) => key.columns.map((column) => column.name)));
  return config.columns
    .map((column) => ({
      name: column.name,
      type: column.getSQLType().toLowerCase(),
      // SQLite lets a primary key column be NULL unless it says NOT NULL; an INTEGER PRIMARY KEY is the rowid.
      notNull: column.notNull,
      primaryKey: column.primary || compositeKey.has(column.name),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

async function migratedColumns(table: string): Promise<Column[]> {
  const { results } = await DB.prepare(`PRAGMA table_info(\`${table}\`)`).all<{
    name: string;
    type: string;
    notnull: number;
    pk: number;
  }>();
  return results
    .map((row) => ({ name: row.name, type: row.type.toLowerCase(), notNull: row.notnull === 1, primaryKey: row.pk > 0 }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe("src/db/schema.ts matches D1 as the migrations leave it", () => {
  it("has the same tables", async () => {
    const { results } = await DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all<{ name: string }>();
    const migrated = results.map((row) => row.name).filter((name) => !notOurs(name));
    expect(migrated).toEqual(schemaTables.map((table) => getTableConfig(table).name).sort());
  });

  it.each(schemaTables.map((table) => [getTableConfig(table).name, table] as const))(
    "%s: the same columns, types, nullability and primary key",
    async (name, table) => {
      expect(await migratedColumns(name)).toEqual(schemaColumns(table));
    },
  );
});
