/**
 * Panel SQL: placeholder binding (the read-only rule is lib/sql-read-only.ts). Placeholders (`{{customer.name}}`,
 * `{{customer.provided_id}}`, `{{customer.properties.<key>}}`, `{{variables.<name>[.<sub>…]}}`)
 * become parameters (`?` for SQLite/D1 and MySQL, `$1`, `$2`… for PostgreSQL, `{p1:String}`… for ClickHouse) — their values are never
 * spliced into the SQL text.
 */

import { placeholdersIn, replacePlaceholders } from "../lib/placeholder-syntax";
import { lexSql, type SqlDialect } from "../lib/sql-lexer";

/** The SQL dialect of a data source: SQLite for D1, PostgreSQL or MySQL behind Hyperdrive, ClickHouse over HTTP. */
export type Dialect = SqlDialect;

export interface PlaceholderContext {
  customer: { provided_id: string; name: string; properties: Record<string, unknown> };
  variables: Record<string, unknown>;
  /** The view's locale and time zone (`{{viewer.locale}}`, `{{viewer.timezone}}`); default en-US and UTC. */
  viewer?: { locale: string; timezone: string };
}

/** What `{{viewer.…}}` binds when the view names nothing. */
const DEFAULT_VIEWER = { locale: "en-US", timezone: "UTC" };

/** No customer and no variables: what checks that run without a viewer (a query's shape, a chart's markup) bind. */
export const NO_CUSTOMER: PlaceholderContext = { customer: { provided_id: "", name: "", properties: {} }, variables: {} };

/** Placeholder paths that can be resolved; anything else is refused when a version is saved. */
export function placeholderProblem(text: string): string | null {
  for (const { path } of placeholdersIn(text)) {
    // A path's segments are never empty (placeholder-syntax.ts), so a prefix is the rule.
    if (
      path !== "customer.provided_id" &&
      path !== "customer.name" &&
      path !== "viewer.locale" &&
      path !== "viewer.timezone" &&
      !path.startsWith("customer.properties.") &&
      !path.startsWith("variables.")
    ) {
      return `unknown placeholder '{{${path}}}'; use customer.provided_id, customer.name, customer.properties.<key>, variables.<name>, viewer.locale or viewer.timezone`;
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
  } else if (root === "viewer") {
    return rest.length === 1 && (rest[0] === "locale" || rest[0] === "timezone") ? (context.viewer ?? DEFAULT_VIEWER)[rest[0]] : undefined;
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

/**
 * The statement cut at its placeholders: `text` has one piece more than `values`, and
 * `values[i]` (bound, never spliced) belongs between `text[i]` and `text[i + 1]`. Only a
 * placeholder in code counts (in a string, name or comment it is plain text); each is
 * padded with spaces so its parameter can never join a neighbouring token; a trailing `;`
 * is dropped (the text runs inside a wrapper). For callers that number parameters
 * themselves, like the report compiler.
 */
export function splitPlaceholders(sql: string, context: PlaceholderContext, dialect: Dialect): { text: string[]; values: Param[] } {
  const { tokens } = lexSql(sql, dialect);
  const lastCode = tokens.findLast((t) => t.kind !== "space" && t.kind !== "comment");
  const text = [""];
  const values: Param[] = [];
  for (const token of tokens) {
    if (token === lastCode && token.kind === "symbol" && token.text === ";") continue;
    if (token.kind === "placeholder") {
      values.push(bindable(resolvePlaceholder(token.value ?? "", context), dialect));
      text[text.length - 1] += " ";
      text.push(" ");
    } else {
      text[text.length - 1] += token.text;
    }
  }
  // An unreadable rest (the database refuses it anyway) is sent as written.
  const consumed = tokens.reduce((end, t) => Math.max(end, t.start + t.text.length), 0);
  text[text.length - 1] += sql.slice(consumed);
  return { text, values };
}

/**
 * The SQL as sent: each placeholder in code a parameter (`?` for SQLite/D1 and MySQL, `$n` for
 * PostgreSQL, ClickHouse's server-side `{pn:Type}`, typed by its value).
 */
export function bindPlaceholders(sql: string, context: PlaceholderContext, dialect: Dialect = "sqlite"): { sql: string; params: Param[] } {
  const { text, values } = splitPlaceholders(sql, context, dialect);
  const joined = text.reduce((out, piece, i) => (i === 0 ? piece : `${out}${parameterMark(dialect, i, values[i - 1])}${piece}`), "");
  return { sql: joined.trim(), params: values };
}

/** The `n`th parameter (from 1) as the dialect writes it. */
export function parameterMark(dialect: Dialect, n: number, value: Param): string {
  if (dialect === "postgres") return `$${n}`;
  if (dialect === "clickhouse") return `{p${n}:${clickhouseType(value)}}`;
  return "?";
}

/** ClickHouse's type for a bound value: numbers Int64 (whole) or Float64, strings String, booleans Bool, null Nullable(String). */
function clickhouseType(value: Param): string {
  if (value === null) return "Nullable(String)";
  if (typeof value === "number") return Number.isSafeInteger(value) ? "Int64" : "Float64";
  if (typeof value === "boolean") return "Bool";
  return "String";
}

/** Text with placeholders replaced by their values as plain text (escape before putting it in HTML). */
export function interpolateText(text: string, context: PlaceholderContext): string {
  return replacePlaceholders(text, (path) => {
    const value = resolvePlaceholder(path, context);
    if (value === undefined || value === null) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}
