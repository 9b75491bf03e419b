/**
 * The D1 schema (drizzle-kit generates the migrations from this file: drizzle.config.ts), in
 * three files by subject: the JSON columns' shapes and column helpers, the workspace (tenancy
 * and dashboards), and deliveries with their rules.
 */
export * from "./schema/columns";
export * from "./schema/workspace";
export * from "./schema/delivery";
