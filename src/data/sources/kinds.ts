import type { Dialect } from "../placeholders";

export type DataSourceKind = "d1" | "postgres" | "mysql" | "clickhouse";

/** A Hyperdrive binding's database engine, from the scheme of its connection string. */
const hyperdriveTo = (scheme: RegExp) => (b: Record<string, unknown>) =>
  typeof b.connectionString === "string" && scheme.test(b.connectionString);

/**
 * What a binding of each kind of data source is at run time, and the SQL it speaks. ClickHouse
 * is reached over its own stored connection (clickhouse-connection.ts), never a binding.
 */
const kinds: Record<DataSourceKind, { dialect: Dialect; what: string; holds: (binding: Record<string, unknown>) => boolean }> = {
  d1: { dialect: "sqlite", what: "a D1 database", holds: (b) => typeof b.prepare === "function" },
  postgres: { dialect: "postgres", what: "a Hyperdrive binding to PostgreSQL", holds: hyperdriveTo(/^postgres(ql)?:/i) },
  mysql: { dialect: "mysql", what: "a Hyperdrive binding to MySQL", holds: hyperdriveTo(/^mysql:/i) },
  clickhouse: { dialect: "clickhouse", what: "a binding (ClickHouse is reached over its `connection`)", holds: () => false },
};

export function dialectOf(kind: DataSourceKind): Dialect {
  return kinds[kind].dialect;
}

/**
 * The service's own database holds token hashes and webhook secrets: no panel may read it,
 * whatever an administrator registers.
 */
const SERVICE_DATABASES = new Set(["DB"]);

/** The Worker's binding of that name when it is of that kind (and not the service's own database), else null. */
export function bindingOfKind(env: object, kind: DataSourceKind, name: string): object | null {
  if (SERVICE_DATABASES.has(name)) return null;
  const binding = (env as Record<string, unknown>)[name];
  return binding !== null && typeof binding === "object" && kinds[kind].holds(binding as Record<string, unknown>) ? binding : null;
}

/** Why a binding name cannot serve a data source of that kind (for the admin API), or null. */
export function bindingProblem(env: object, kind: DataSourceKind, name: string): string | null {
  if (SERVICE_DATABASES.has(name)) return `'${name}' is this service's own database; a data source must be another database.`;
  return bindingOfKind(env, kind, name) ? null : `'${name}' is not ${kinds[kind].what} bound to this Worker.`;
}
