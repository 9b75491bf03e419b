/**
 * Panel SQL: read-only checks and placeholder binding. Placeholders (`{{customer.name}}`,
 * `{{customer.provided_id}}`, `{{customer.properties.<key>}}`, `{{variables.<name>[.<sub>…]}}`)
 * become parameters (`?` for SQLite/D1, `$1`, `$2`… for PostgreSQL) — their values are never
 * spliced into the SQL text.
 */

/** The SQL dialect of a data source: SQLite for D1, PostgreSQL behind Hyperdrive. */
export type Dialect = "sqlite" | "postgres";

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

const FORBIDDEN =
  /\b(INSERT|UPDATE|DELETE|REPLACE|UPSERT|CREATE|DROP|ALTER|ATTACH|DETACH|PRAGMA|VACUUM|REINDEX|ANALYZE|TRUNCATE|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|GRANT|REVOKE)\b/i;

/** The SQL with string literals, quoted identifiers and comments blanked out. */
function codeOnly(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/"(?:[^"]|"")*"/g, '""')
    .replace(/`[^`]*`/g, "``")
    .replace(/\[[^\]]*\]/g, "[]")
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ");
}

/** Why the statement is not an acceptable read-only query, or null when it is. */
export function readOnlyProblem(sql: string): string | null {
  const code = codeOnly(sql).replace(PLACEHOLDER, "?").trim().replace(/;\s*$/, "");
  if (code === "") return "the query is empty";
  if (code.includes(";")) return "only one statement is allowed";
  if (!/^(SELECT|WITH|VALUES)\b/i.test(code)) return "only SELECT (or WITH … SELECT) queries are allowed";
  const forbidden = FORBIDDEN.exec(code);
  if (forbidden) return `'${forbidden[1].toUpperCase()}' is not allowed in a read-only query`;
  return null;
}

export interface PlaceholderContext {
  customer: { provided_id: string; name: string; properties: Record<string, unknown> };
  variables: Record<string, unknown>;
}

/** Placeholder paths that can be resolved; anything else is refused when a version is saved. */
export function placeholderProblem(text: string): string | null {
  for (const match of text.matchAll(PLACEHOLDER)) {
    const path = match[1];
    if (
      path !== "customer.provided_id" &&
      path !== "customer.name" &&
      !/^customer\.properties\.[^.]+(\.[^.]+)*$/.test(path) &&
      !/^variables\.[^.]+(\.[^.]+)*$/.test(path)
    ) {
      return `unknown placeholder '{{${path}}}'; use customer.provided_id, customer.name, customer.properties.<key> or variables.<name>`;
    }
  }
  return null;
}

export function resolvePlaceholder(path: string, context: PlaceholderContext): unknown {
  const [root, ...rest] = path.split(".");
  let value: unknown;
  if (root === "customer") {
    if (rest[0] === "properties") {
      value = context.customer.properties;
      rest.shift();
    } else {
      return rest.length === 1 ? (context.customer as unknown as Record<string, unknown>)[rest[0]] : undefined;
    }
  } else if (root === "variables") {
    value = context.variables;
  } else {
    return undefined;
  }
  for (const key of rest) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export type Param = string | number | boolean | null;

/** A bindable value: objects become JSON text, missing values NULL; SQLite has no booleans (1/0). */
function bindable(value: unknown, dialect: Dialect): Param {
  if (value === undefined || value === null) return null;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "boolean") return dialect === "sqlite" ? (value ? 1 : 0) : value;
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

export function bindPlaceholders(sql: string, context: PlaceholderContext, dialect: Dialect = "sqlite"): { sql: string; params: Param[] } {
  const params: Param[] = [];
  const text = sql.replace(PLACEHOLDER, (_match, path: string) => {
    params.push(bindable(resolvePlaceholder(path, context), dialect));
    return dialect === "postgres" ? `$${params.length}` : "?";
  });
  return { sql: text.trim().replace(/;\s*$/, ""), params };
}

/** Text with placeholders replaced by their values as plain text (escape before putting it in HTML). */
export function interpolateText(text: string, context: PlaceholderContext): string {
  return text.replace(PLACEHOLDER, (_match, path: string) => {
    const value = resolvePlaceholder(path, context);
    if (value === undefined || value === null) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}
