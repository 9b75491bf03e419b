// `npm run admin -- data load <file.csv> --table <name> [--source <data source>]`: a vendor's own
// rows in a local data source, to try a panel over them (docs/getting-started.md). The CSV's
// header row names the columns; each column's type is inferred from its values (or given with
// --types), empty cells are NULL. Into the local demo D1 (through the running server), or into the PostgreSQL / MySQL behind a local data source (its binding's local
// connection string, in the data source's namespace). The table is created; --replace drops
// one that exists first.
import { readFileSync } from "node:fs";
import mysql from "mysql2/promise";
import Papa from "papaparse";
import pg from "pg";
import { warehouseConnectionString } from "./warehouse.mjs";
import { mysqlConnectionString } from "./warehouse-mysql.mjs";

export const COLUMN_TYPES = ["integer", "number", "boolean", "date", "datetime", "text"];

const PATTERNS = {
  integer: /^-?\d{1,15}$/,
  number: /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i,
  boolean: /^(true|false)$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  datetime: /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/,
};

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The CSV's header and rows (strings; an empty cell is null). */
export function readCsv(text) {
  const parsed = Papa.parse(text.replace(/^\uFEFF/, ""), { skipEmptyLines: true });
  const [header, ...rows] = parsed.data;
  if (!header || header.length === 0) throw new Error("the CSV has no header row");
  const columns = header.map((name) => String(name).trim());
  const seen = new Set();
  for (const name of columns) {
    if (name === "" || name.length > 63) throw new Error(`a column name must be 1-63 characters (got "${name}")`);
    if (seen.has(name.toLowerCase())) throw new Error(`the column "${name}" appears twice`);
    seen.add(name.toLowerCase());
  }
  for (const [i, row] of rows.entries())
    if (row.length !== columns.length) throw new Error(`row ${i + 2} has ${row.length} cells, the header ${columns.length}`);
  return { columns, rows: rows.map((row) => row.map((cell) => (cell === "" ? null : cell))) };
}

/** Each column's type: the one given (`--types name:type,…`), else the narrowest every value fits. */
export function columnTypes(columns, rows, given = {}) {
  for (const [name, type] of Object.entries(given)) {
    if (!columns.includes(name)) throw new Error(`--types names "${name}", which is not a column of the CSV`);
    if (!COLUMN_TYPES.includes(type)) throw new Error(`--types: "${type}" is not one of ${COLUMN_TYPES.join(", ")}`);
  }
  return columns.map((name, i) => {
    if (given[name]) return given[name];
    const values = rows.map((row) => row[i]).filter((value) => value !== null);
    if (values.length === 0) return "text";
    for (const type of ["integer", "number", "boolean", "date", "datetime"]) if (values.every((v) => PATTERNS[type].test(v))) return type;
    return "text";
  });
}

/** `a:integer,b:date` → { a: "integer", b: "date" }. */
export function parseTypes(text) {
  if (!text) return {};
  return Object.fromEntries(
    String(text)
      .split(",")
      .filter(Boolean)
      .map((pair) => {
        const at = pair.lastIndexOf(":");
        if (at <= 0) throw new Error(`--types wants name:type pairs (got "${pair}")`);
        return [
          pair.slice(0, at).trim(),
          pair
            .slice(at + 1)
            .trim()
            .toLowerCase(),
        ];
      }),
  );
}

const SQL_TYPES = {
  d1: { integer: "INTEGER", number: "REAL", boolean: "INTEGER", date: "TEXT", datetime: "TEXT", text: "TEXT" },
  postgres: { integer: "bigint", number: "double precision", boolean: "boolean", date: "date", datetime: "timestamptz", text: "text" },
  mysql: { integer: "BIGINT", number: "DOUBLE", boolean: "BOOLEAN", date: "DATE", datetime: "DATETIME", text: "TEXT" },
};

const quoteIdent = (kind, name) => (kind === "mysql" ? `\`${name.replaceAll("`", "``")}\`` : `"${name.replaceAll('"', '""')}"`);

/** A cell as the engine takes it: numbers as numbers, booleans as the engine spells them, else the text. */
function cellValue(kind, type, value) {
  if (value === null) return null;
  if (type === "integer" || type === "number") return Number(value);
  if (type === "boolean") {
    const yes = value.toLowerCase() === "true";
    return kind === "postgres" ? yes : yes ? 1 : 0;
  }
  if (type === "datetime" && kind === "mysql") return value.replace("T", " ").replace(/(Z|[+-]\d{2}:?\d{2})$/, "");
  return value;
}

function createTableSql(kind, table, columns, types) {
  const list = columns.map((name, i) => `${quoteIdent(kind, name)} ${SQL_TYPES[kind][types[i]]}`).join(", ");
  return `CREATE TABLE ${table} (${list})`;
}

/** An SQL literal for D1's file of statements (the rows go in as text; nothing runs them but wrangler). */
function sqliteLiteral(value) {
  if (value === null) return "NULL";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "NULL";
  return `'${String(value).replaceAll("'", "''")}'`;
}

/**
 * Into a D1 data source through the running server (its /_dev/data-load route runs the
 * statements on the binding): a second process on the server's D1 files ended that server.
 * In calls of at most ~512 KB of statements, each one batch; the CREATE TABLE goes first.
 */
async function loadD1({ request, binding, table, columns, types, rows, replace }) {
  const name = quoteIdent("d1", table);
  const list = columns.map((c) => quoteIdent("d1", c)).join(", ");
  const statements = [
    ...(replace ? [`DROP TABLE IF EXISTS ${name}`] : []),
    createTableSql("d1", name, columns, types),
    ...rows.map(
      (row) => `INSERT INTO ${name} (${list}) VALUES (${row.map((v, i) => sqliteLiteral(cellValue("d1", types[i], v))).join(", ")})`,
    ),
  ];
  let batch = [];
  let size = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const answer = await request("POST", "/_dev/data-load", { binding, statements: batch });
    if (answer.success !== 1) {
      const message = answer.error?.message ?? JSON.stringify(answer);
      throw new Error(/already exists/.test(message) ? `the table ${table} exists already (add --replace to replace it)` : message);
    }
    batch = [];
    size = 0;
  };
  for (const statement of statements) {
    if (size + statement.length > 512 * 1024 || batch.length >= 4000) await send();
    batch.push(statement);
    size += statement.length + 4;
  }
  await send();
}

async function loadPostgres({ connectionString, namespace, table, columns, types, rows, replace }) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("BEGIN");
    if (namespace) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent("postgres", namespace)}`);
    const name = `${namespace ? `${quoteIdent("postgres", namespace)}.` : ""}${quoteIdent("postgres", table)}`;
    if (replace) await client.query(`DROP TABLE IF EXISTS ${name}`);
    await client.query(createTableSql("postgres", name, columns, types));
    const list = columns.map((c) => quoteIdent("postgres", c)).join(", ");
    // In batches: PostgreSQL takes at most 65,535 parameters a statement.
    const perBatch = Math.max(1, Math.floor(60_000 / columns.length));
    for (let start = 0; start < rows.length; start += perBatch) {
      const batch = rows.slice(start, start + perBatch);
      const values = batch.flatMap((row) => row.map((v, i) => cellValue("postgres", types[i], v)));
      const tuples = batch.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`);
      await client.query(`INSERT INTO ${name} (${list}) VALUES ${tuples.join(", ")}`, values);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw /already exists/.test(error.message) ? new Error(`the table ${table} exists already (add --replace to replace it)`) : error;
  } finally {
    await client.end().catch(() => {});
  }
}

async function loadMysql({ adminUrl, database, table, columns, types, rows, replace }) {
  const connection = await mysql.createConnection({ uri: adminUrl, connectTimeout: 5000 });
  try {
    const name = `${quoteIdent("mysql", database)}.${quoteIdent("mysql", table)}`;
    await connection.query(`CREATE DATABASE IF NOT EXISTS ${quoteIdent("mysql", database)} CHARACTER SET utf8mb4`);
    if (replace) await connection.query(`DROP TABLE IF EXISTS ${name}`);
    await connection.query(createTableSql("mysql", name, columns, types));
    const list = columns.map((c) => quoteIdent("mysql", c)).join(", ");
    for (let start = 0; start < rows.length; start += 1000) {
      const batch = rows.slice(start, start + 1000).map((row) => row.map((v, i) => cellValue("mysql", types[i], v)));
      await connection.query(`INSERT INTO ${name} (${list}) VALUES ?`, [batch]);
    }
  } catch (error) {
    throw /already exists/.test(error.message) ? new Error(`the table ${table} exists already (add --replace to replace it)`) : error;
  } finally {
    await connection.end().catch(() => {});
  }
}

/**
 * Loads `file` into `source` (a data source as GET /admin/data_sources/ answers it; the demo D1
 * when undefined). Answers what was made: the table, its columns with their types, the rows.
 */
export async function loadCsv({ root, request, file, table, source, types: given = {}, replace = false }) {
  if (!TABLE_NAME.test(table ?? "")) throw new Error("--table must be a name of letters, digits and _ (not starting with a digit)");
  const { columns, rows } = readCsv(readFileSync(file, "utf8"));
  const types = columnTypes(columns, rows, given);
  const kind = source?.kind ?? "d1";
  const load = { table, columns, types, rows, replace };
  if (kind === "d1") await loadD1({ ...load, request, binding: source?.binding ?? "DEMO_DATA" });
  else if (kind === "postgres") {
    if (source.binding !== "WAREHOUSE") throw new Error(`data load knows the local PostgreSQL of WAREHOUSE, not of ${source.binding}`);
    await loadPostgres({ ...load, connectionString: warehouseConnectionString(root), namespace: source.namespace });
  } else if (kind === "mysql") {
    if (source.binding !== "WAREHOUSE_MYSQL")
      throw new Error(`data load knows the local MySQL of WAREHOUSE_MYSQL, not of ${source.binding}`);
    const url = new URL(mysqlConnectionString(root));
    // The binding's own account only reads: the rows go in as the server's root on the loopback
    // (how `npm start` runs its MariaDB), or MYSQL_DEMO_ADMIN_URL.
    const adminUrl = process.env.MYSQL_DEMO_ADMIN_URL ?? `mysql://root@${url.hostname}:${url.port || 3306}/mysql`;
    await loadMysql({ ...load, adminUrl, database: source.namespace ?? decodeURIComponent(url.pathname.slice(1)) });
  } else throw new Error(`a data source of kind ${kind} cannot be loaded`);
  return { table, kind, columns: columns.map((name, i) => ({ name, type: types[i] })), rows: rows.length };
}
