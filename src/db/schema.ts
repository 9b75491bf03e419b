import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { JOB_KINDS, JOB_STATUSES } from "./job-vocabulary";
import { sqlNow } from "./time";

// Timestamps are ISO 8601 UTC text; names that must be unique case-insensitively keep
// a lower-cased `*_key` column next to the name as given.
const timestamp = (name: string) => text(name).notNull().default(sql`(${sqlNow})`);
const createdAt = () => timestamp("created_at");

/**
 * The shape of every JSON column, keyed `<table>.<column>`. A capability's own documents
 * (a dashboard definition, a job's request, …) are declared next to their type by the
 * capability, by declaration merging — `declare module "../db/schema" { interface
 * JsonColumns { "dashboard_versions.definition": Definition } }` — so this floor imports
 * no capability and every JSON column still reads back typed.
 */
export interface JsonColumns {
  "customers.emails": string[];
  "customers.properties": Record<string, unknown>;
  "customers.mapping": Record<string, string>;
  /** The access groups that may use the data source. */
  "data_sources.access_group_ids": number[];
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
const json = <K extends keyof JsonColumns>(key: K) => text(key.slice(key.indexOf(".") + 1), { mode: "json" }).$type<JsonColumns[K]>();

export const accessGroups = sqliteTable(
  "access_groups",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("access_groups_name_key").on(t.nameKey)],
);

export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    accessGroupId: integer("access_group_id")
      .notNull()
      .references(() => accessGroups.id),
    permission: text("permission", { enum: ["read", "write"] }).notNull(),
    // SHA-256 of the token; the token itself is shown once and never stored.
    tokenHash: text("token_hash").notNull(),
    createdAt: createdAt(),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("api_tokens_token_hash").on(t.tokenHash)],
);

export const hierarchyLevels = sqliteTable(
  "hierarchy_levels",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    // 0 is the root (highest) level; a parent's position is strictly smaller than its child's.
    position: integer("position").notNull(),
  },
  (t) => [uniqueIndex("hierarchy_levels_name").on(t.name)],
);

export const schemas = sqliteTable("schemas", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

export const dataSources = sqliteTable(
  "data_sources",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    providedId: text("provided_id"),
    name: text("name").notNull(),
    binding: text("binding").notNull(),
    // d1: a D1 binding; postgres: a Hyperdrive binding in front of the vendor's PostgreSQL.
    kind: text("kind", { enum: ["d1", "postgres"] })
      .notNull()
      .default("d1"),
    // JSON array of the access group ids that may use it; NULL = every access group.
    accessGroupIds: json("data_sources.access_group_ids"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("data_sources_provided_id").on(t.providedId)],
);

export const customers = sqliteTable(
  "customers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    providedId: text("provided_id").notNull(),
    name: text("name").notNull(),
    accessGroupId: integer("access_group_id").references(() => accessGroups.id),
    hierarchyLevelId: integer("hierarchy_level_id")
      .notNull()
      .references(() => hierarchyLevels.id),
    // RESTRICT: a customer with children cannot be deleted (docs/api-contract.md, "Hierarchy"), enforced by D1 too.
    parentId: integer("parent_id").references((): AnySQLiteColumn => customers.id, { onDelete: "restrict" }),
    isDemo: integer("is_demo", { mode: "boolean" }).notNull().default(false),
    emails: json("customers.emails").notNull().default([]),
    properties: json("customers.properties"),
    mapping: json("customers.mapping"),
    // The customer token is HMAC(CUSTOMER_TOKEN_SECRET, token_nonce); only its SHA-256 is
    // stored for lookups, so the database alone never reveals a usable token.
    tokenNonce: text("token_nonce").notNull(),
    tokenHash: text("token_hash").notNull(),
    // Bumped by POST /api/invalidate_cache/: part of every cached query result's key for this customer.
    cacheVersion: integer("cache_version").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [
    uniqueIndex("customers_provided_id").on(t.providedId),
    uniqueIndex("customers_token_hash").on(t.tokenHash),
    index("customers_access_group").on(t.accessGroupId, t.id),
    index("customers_parent").on(t.parentId),
    index("customers_level").on(t.hierarchyLevelId),
  ],
);

export const groupTags = sqliteTable(
  "group_tags",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("group_tags_name_key").on(t.nameKey)],
);

export const customerGroupTags = sqliteTable(
  "customer_group_tags",
  {
    customerId: integer("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    groupTagId: integer("group_tag_id")
      .notNull()
      .references(() => groupTags.id, { onDelete: "cascade" }),
    // Keeps the order in which the tags were given.
    position: integer("position").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.groupTagId] }), index("customer_group_tags_tag").on(t.groupTagId)],
);

export const blueprints = sqliteTable(
  "blueprints",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    embedId: text("embed_id").notNull(),
    name: text("name").notNull(),
    customerId: integer("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    // The tables as stored, defaults filled in; update_blueprint replaces them whole.
    tables: json("blueprints.tables").notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [uniqueIndex("blueprints_embed_id").on(t.embedId), index("blueprints_customer").on(t.customerId, t.id)],
);

/** Deprecated end users: belong to one customer, `provided_id` unique per customer. */
export const endUsers = sqliteTable(
  "end_users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    customerId: integer("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    providedId: text("provided_id").notNull(),
    email: text("email").notNull(),
    attributes: json("end_users.attributes").notNull().default({}),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [uniqueIndex("end_users_customer_provided_id").on(t.customerId, t.providedId), index("end_users_email").on(t.customerId, t.email)],
);

export const dashboards = sqliteTable(
  "dashboards",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    embedId: text("embed_id").notNull(),
    name: text("name").notNull(),
    // Bumped by POST /api/invalidate_cache/: part of every cached query result's key for this dashboard.
    cacheVersion: integer("cache_version").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [uniqueIndex("dashboards_embed_id").on(t.embedId)],
);

/** Numbered versions of a dashboard's definition (validated JSON); the newest may be a draft. */
export const dashboardVersions = sqliteTable(
  "dashboard_versions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    dashboardId: integer("dashboard_id")
      .notNull()
      .references(() => dashboards.id, { onDelete: "cascade" }),
    versionNumber: integer("version_number").notNull(),
    definition: json("dashboard_versions.definition").notNull(),
    draft: integer("draft", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("dashboard_versions_number").on(t.dashboardId, t.versionNumber)],
);

/** Environment tags (`production`, `email`, …), each pointing at one version. */
export const dashboardTags = sqliteTable(
  "dashboard_tags",
  {
    dashboardId: integer("dashboard_id")
      .notNull()
      .references(() => dashboards.id, { onDelete: "cascade" }),
    tag: text("tag").notNull(),
    versionId: integer("version_id")
      .notNull()
      .references(() => dashboardVersions.id, { onDelete: "cascade" }),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [primaryKey({ columns: [t.dashboardId, t.tag] })],
);

/** Screenshot and report deliveries: one row per request, moved along by the queue consumer. */
export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: JOB_KINDS }).notNull(),
    // Moved only by the guarded transitions of src/delivery/job-state.ts.
    status: text("status", { enum: JOB_STATUSES }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    error: text("error"),
    // NULL once the customer is deleted: the job stays, to end `failed` with a reason.
    customerId: integer("customer_id").references(() => customers.id, { onDelete: "set null" }),
    accessGroupId: integer("access_group_id").notNull(),
    dashboardEmbedId: text("dashboard_embed_id").notNull(),
    // A saved report's job (dashboard_embed_id is then '').
    reportId: text("report_id"),
    // What was asked: recipient, file name, export type, subject, variables, width, link target.
    request: json("jobs.request").notNull(),
    fileKey: text("file_key"),
    contentType: text("content_type"),
    // Set once the e-mail is being sent, so a redelivered message never sends it twice.
    emailClaimedAt: text("email_claimed_at"),
    sentAt: text("sent_at"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [index("jobs_customer").on(t.customerId), index("jobs_status_updated").on(t.status, t.updatedAt)],
);

/** Per access group, the secret that signs delivery webhooks (HMAC-SHA256 needs it in clear). */
export const webhookSecrets = sqliteTable("webhook_secrets", {
  accessGroupId: integer("access_group_id")
    .primaryKey()
    .references(() => accessGroups.id, { onDelete: "cascade" }),
  secret: text("secret").notNull(),
  createdAt: createdAt(),
});

/**
 * Scheduled reports: one customer (`customer_id`) or every customer with a group tag
 * (`group_tag_id`) in the access group. Both go with their target (cascade).
 * `next_run_at` (UTC minute, null while paused) is what the scheduler's tick looks up.
 */
export const reportSchedules = sqliteTable(
  "report_schedules",
  {
    id: text("id").primaryKey(),
    accessGroupId: integer("access_group_id")
      .notNull()
      .references(() => accessGroups.id, { onDelete: "cascade" }),
    dashboardEmbedId: text("dashboard_embed_id").notNull(),
    customerId: integer("customer_id").references(() => customers.id, { onDelete: "cascade" }),
    groupTagId: integer("group_tag_id").references(() => groupTags.id, { onDelete: "cascade" }),
    cron: text("cron").notNull(),
    timezone: text("timezone").notNull(),
    recipients: json("report_schedules.recipients").notNull().default([]),
    // `csv` only with report_id (a saved report's rows).
    format: text("format", { enum: ["report", "pdf", "image", "xlsx", "csv"] })
      .notNull()
      .default("report"),
    subject: text("subject"),
    variables: json("report_schedules.variables"),
    paused: integer("paused", { mode: "boolean" }).notNull().default(false),
    nextRunAt: text("next_run_at"),
    // Origin of the API call that last saved the schedule: where its e-mails' links point.
    linkBase: text("link_base").notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
    // Two kinds of rules share the scheduler: a schedule e-mails at every slot, an alert
    // (src/alerts/) evaluates a panel per customer and notifies when its condition holds.
    kind: text("kind", { enum: ["schedule", "alert"] })
      .notNull()
      .default("schedule"),
    source: text("source", { enum: ["api", "embed"] })
      .notNull()
      .default("api"),
    // The viewer who subscribed from the embed page (source 'embed').
    subscriberEmail: text("subscriber_email"),
    // A saved report delivered instead of a dashboard (dashboard_embed_id is then '').
    reportId: text("report_id"),
    // Alerts only.
    panelId: text("panel_id"),
    alertColumn: text("alert_column"),
    conditionOp: text("condition_op", { enum: ["gt", "gte", "lt", "lte", "eq", "neq"] }),
    conditionValue: real("condition_value"),
    notify: text("notify", { enum: ["on_change", "always"] }),
    callbackUrl: text("callback_url"),
  },
  (t) => [
    index("report_schedules_subscriber").on(t.customerId, t.subscriberEmail),
    index("report_schedules_access_group").on(t.accessGroupId, t.createdAt),
    index("report_schedules_due").on(t.nextRunAt),
    index("report_schedules_customer").on(t.customerId),
    index("report_schedules_group_tag").on(t.groupTagId),
  ],
);

/** One run of a schedule; a scheduled slot is claimed once by the partial unique index. */
export const reportScheduleRuns = sqliteTable(
  "report_schedule_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    scheduleId: text("schedule_id")
      .notNull()
      .references(() => reportSchedules.id, { onDelete: "cascade" }),
    slot: text("slot").notNull(),
    trigger: text("trigger", { enum: ["schedule", "manual"] }).notNull(),
    jobIds: json("report_schedule_runs.job_ids").notNull().default([]),
    skipped: integer("skipped").notNull().default(0),
    // Deliveries that could not even be started (e.g. the dashboard is gone): count as failed.
    notStarted: integer("not_started").notNull().default(0),
    fannedOutAt: text("fanned_out_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("report_schedule_runs_slot").on(t.scheduleId, t.slot).where(sql`"trigger" = 'schedule'`),
    index("report_schedule_runs_schedule").on(t.scheduleId, t.id),
  ],
);

/**
 * One evaluation of an alert for one customer in one run; the newest of an (alert, customer)
 * is that pair's on_change state (`holds`: true, false, null = unknown).
 */
export const alertEvaluations = sqliteTable(
  "alert_evaluations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    alertId: text("alert_id")
      .notNull()
      .references(() => reportSchedules.id, { onDelete: "cascade" }),
    runId: integer("run_id")
      .notNull()
      .references(() => reportScheduleRuns.id, { onDelete: "cascade" }),
    customerId: integer("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    slot: text("slot").notNull(),
    value: real("value"),
    holds: integer("holds", { mode: "boolean" }),
    fired: integer("fired", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("alert_evaluations_run_customer").on(t.runId, t.customerId),
    index("alert_evaluations_alert_customer").on(t.alertId, t.customerId, t.id),
  ],
);

/** Unsubscribe links: only each token's SHA-256, with the (rule, address) it stops. */
export const unsubscribeTokens = sqliteTable(
  "unsubscribe_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    scheduleId: text("schedule_id")
      .notNull()
      .references(() => reportSchedules.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("unsubscribe_tokens_schedule").on(t.scheduleId)],
);

/** Addresses (lower-cased) removed from a schedule or alert for good. */
export const scheduleUnsubscribes = sqliteTable(
  "schedule_unsubscribes",
  {
    scheduleId: text("schedule_id")
      .notNull()
      .references(() => reportSchedules.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.scheduleId, t.email] })],
);

/** A report a customer's user saved in the report builder; goes with its blueprint and customer. */
export const savedReports = sqliteTable(
  "saved_reports",
  {
    id: text("id").primaryKey(),
    blueprintId: integer("blueprint_id")
      .notNull()
      .references(() => blueprints.id, { onDelete: "cascade" }),
    customerId: integer("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    // The report query and chart as JSON text, as saved (validated against the blueprint then).
    query: json("saved_reports.query").notNull(),
    chart: json("saved_reports.chart").notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [index("saved_reports_blueprint").on(t.blueprintId, t.updatedAt), index("saved_reports_customer").on(t.customerId, t.updatedAt)],
);

/** Report-builder requests per customer and one-minute window (BUILDER_REQUESTS_PER_MINUTE). */
export const builderRequestCounts = sqliteTable(
  "builder_request_counts",
  {
    customerId: integer("customer_id").notNull(),
    windowStart: integer("window_start").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.windowStart] })],
);
