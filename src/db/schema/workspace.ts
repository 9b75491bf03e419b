import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, json, timestamp } from "./columns";

// Tenancy (access groups, tokens, customers, their tags and blueprints) and dashboards.

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
    // d1: a D1 binding; postgres / mysql: a Hyperdrive binding in front of the vendor's database;
    // clickhouse: no binding ('' here), its HTTP(S) interface at `connection`.
    kind: text("kind", { enum: ["d1", "postgres", "mysql", "clickhouse"] })
      .notNull()
      .default("d1"),
    // The PostgreSQL schema or MySQL database its panels read (one binding, many tenants); NULL: the binding's own.
    namespace: text("namespace"),
    // JSON array of the access group ids that may use it; NULL = every access group.
    accessGroupIds: json("data_sources.access_group_ids"),
    // ClickHouse: `{ url, database, user, password }`, the password sealed (lib/secret-box.ts); NULL for the other kinds.
    connection: json("data_sources.connection"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("data_sources_provided_id").on(t.providedId)],
);

/**
 * An access group's themes (src/themes/): names unique per group case-insensitively, at most
 * one default per group (the partial unique index). `document` is the theme as resolved —
 * every color filled in, fonts and logo by their SHA-256 in R2 (FILES, `theme-assets/`).
 */
export const themes = sqliteTable(
  "themes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accessGroupId: integer("access_group_id")
      .notNull()
      .references(() => accessGroups.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    document: json("themes.document").notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [
    uniqueIndex("themes_group_name_key").on(t.accessGroupId, t.nameKey),
    uniqueIndex("themes_group_default").on(t.accessGroupId).where(sql`"is_default" = 1`),
  ],
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
    // Presentation (src/view/presentation.ts): own values, NULL = inherited from the parent.
    themeId: integer("theme_id").references(() => themes.id),
    locale: text("locale"),
    timezone: text("timezone"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [
    uniqueIndex("customers_provided_id").on(t.providedId),
    uniqueIndex("customers_token_hash").on(t.tokenHash),
    index("customers_access_group").on(t.accessGroupId, t.id),
    index("customers_parent").on(t.parentId),
    index("customers_level").on(t.hierarchyLevelId),
    index("customers_theme").on(t.themeId),
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
    // Bumped by POST /api/invalidate_cache/ with dashboard_embed_id, per access group ({"<group id>": version}):
    // one group's invalidation makes only its own customers miss.
    groupCacheVersions: json("dashboards.group_cache_versions").notNull().default({}),
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
