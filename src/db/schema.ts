/**
 * The D1 schema (drizzle-kit generates the migrations from this file: drizzle.config.ts), in
 * files by subject: the JSON columns' shapes and column helpers, the workspace (tenancy
 * and dashboards), deliveries with their rules, and the console's sessions.
 */
export * from "./schema/columns";
export * from "./schema/workspace";
export * from "./schema/delivery";
export * from "./schema/console";
