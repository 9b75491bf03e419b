/**
 * The D1 schema as the code queries it (the migrations are SQL written by hand to match it:
 * docs/architecture.md, "Migrations"; test/db/schema-matches-migrations.test.ts checks both agree), in
 * files by subject: the JSON columns' shapes and column helpers, the workspace (tenancy
 * and dashboards), deliveries with their rules, and the console's sessions.
 */
export * from "./schema/columns";
export * from "./schema/workspace";
export * from "./schema/delivery";
export * from "./schema/console";
