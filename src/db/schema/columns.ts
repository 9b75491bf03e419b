import { sql } from "drizzle-orm";
import { text } from "drizzle-orm/sqlite-core";
import { sqlNow } from "../time";

// Timestamps are ISO 8601 UTC text; names that must be unique case-insensitively keep
// a lower-cased `*_key` column next to the name as given.
export const timestamp = (name: string) => text(name).notNull().default(sql`(${sqlNow})`);
export const createdAt = () => timestamp("created_at");

/**
 * The shape of every JSON column, keyed `<table>.<column>`. A capability's own documents
 * (a dashboard definition, a job's request, …) are declared next to their type by the
 * capability, by declaration merging — `declare module "../db/schema/columns" { interface
 * JsonColumns { "dashboard_versions.definition": Definition } }` — so this floor imports
 * no capability and every JSON column still reads back typed.
 */
export interface JsonColumns {
  "customers.emails": string[];
  "customers.properties": Record<string, unknown>;
  "customers.mapping": Record<string, string>;
  /** The access groups that may use the data source. */
  "data_sources.access_group_ids": number[];
  /** A ClickHouse data source's server: `password` is sealed under DATA_SOURCE_KEY (lib/secret-box.ts), never plain. */
  "data_sources.connection": { url: string; database: string | null; user: string; password: string };
  /** A dashboard's query-cache invalidation version per access group id. */
  "dashboards.group_cache_versions": Record<string, number>;
  /** A legacy end user's attributes (`header` and `footer` hold HTML for report e-mails). */
  "end_users.attributes": Record<string, unknown>;
  /** A schedule's (or alert's) fixed recipients, and the variables its deliveries render with. */
  "report_schedules.recipients": string[];
  "report_schedules.variables": Record<string, unknown>;
  /** The jobs a run started. */
  "report_schedule_runs.job_ids": string[];
}

/**
 * A JSON column: drizzle writes `JSON.stringify(value)` and reads `JSON.parse(text)`, the
 * same text the services wrote by hand before (no migration: the stored bytes are alike).
 */
export const json = <K extends keyof JsonColumns>(key: K) =>
  text(key.slice(key.indexOf(".") + 1), { mode: "json" }).$type<JsonColumns[K]>();
