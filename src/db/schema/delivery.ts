import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, json, timestamp } from "./columns";
import { JOB_KINDS, JOB_STATUSES } from "../job-vocabulary";
import { customers, blueprints, groupTags, accessGroups, themes } from "./workspace";

// Deliveries (jobs), schedules and alerts with their runs, unsubscribes, saved reports.
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
    // A download link's token, hashed (SHA-256 hex), and until when it answers; NULL for e-mails.
    downloadTokenHash: text("download_token_hash"),
    downloadExpiresAt: text("download_expires_at"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [
    index("jobs_customer").on(t.customerId),
    index("jobs_status_updated").on(t.status, t.updatedAt),
    uniqueIndex("jobs_download_token").on(t.downloadTokenHash),
  ],
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
    // The version tag the subscriber's embed token was pinned to (source 'embed'): its e-mails show that version.
    environment: text("environment"),
    // A saved report delivered instead of a dashboard (dashboard_embed_id is then '').
    reportId: text("report_id"),
    // Alerts only.
    panelId: text("panel_id"),
    alertColumn: text("alert_column"),
    conditionOp: text("condition_op", { enum: ["gt", "gte", "lt", "lte", "eq", "neq"] }),
    conditionValue: real("condition_value"),
    notify: text("notify", { enum: ["on_change", "always"] }),
    callbackUrl: text("callback_url"),
    // The theme and locale its deliveries are drawn in (NULL = the customer's computed ones).
    themeId: integer("theme_id").references(() => themes.id),
    locale: text("locale"),
    // The pages its PDFs are printed on (format 'pdf'); NULL: the definition's, else one page from the width.
    pdf: json("report_schedules.pdf"),
  },
  (t) => [
    index("report_schedules_subscriber").on(t.customerId, t.subscriberEmail),
    index("report_schedules_access_group").on(t.accessGroupId, t.createdAt),
    index("report_schedules_due").on(t.nextRunAt),
    index("report_schedules_customer").on(t.customerId),
    index("report_schedules_group_tag").on(t.groupTagId),
    index("report_schedules_theme").on(t.themeId),
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
    // The locked filters of the token that saved it: applied to every run, compared on change.
    lockedFilters: json("saved_reports.locked_filters").notNull().default([]),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [index("saved_reports_blueprint").on(t.blueprintId, t.updatedAt), index("saved_reports_customer").on(t.customerId, t.updatedAt)],
);
