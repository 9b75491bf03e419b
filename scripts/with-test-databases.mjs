#!/usr/bin/env node
// Runs a command with the database servers the tests use, as `npm test` does for its whole
// run: the local PostgreSQL (scripts/lib/local-postgres.mjs), the MySQL-protocol server
// (scripts/lib/local-mysql.mjs) and the ClickHouse server (scripts/lib/local-clickhouse.mjs).
// For running a few test files:
//   node scripts/with-test-databases.mjs npx vitest run --project workers test/data/sources/mysql.test.ts
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { clickhouseTestEnv, ensureLocalClickhouse } from "./lib/local-clickhouse.mjs";
import { ensureLocalMysql } from "./lib/local-mysql.mjs";
import { ensureLocalPostgres } from "./lib/local-postgres.mjs";
import { warehouseConnectionString } from "./lib/warehouse.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const postgres = await ensureLocalPostgres(warehouseConnectionString(root), { ownPortIfRefused: true });
if (postgres.connectionString) process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE = postgres.connectionString;
const mysql = await ensureLocalMysql();
if (mysql.skipped) console.log(`local-mysql: MySQL tests skipped: ${mysql.skipped}`);
else {
  process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE_MYSQL = mysql.connectionString;
  process.env.MYSQL_TEST_ADMIN_URL = mysql.adminConnectionString;
}
const clickhouse = await ensureLocalClickhouse();
if (clickhouse.skipped) console.log(`local-clickhouse: ClickHouse tests skipped: ${clickhouse.skipped}`);
else Object.assign(process.env, clickhouseTestEnv(clickhouse));
const [command, ...args] = process.argv.slice(2);
const run = spawnSync(command, args, { stdio: "inherit", env: process.env });
await clickhouse.stop();
await mysql.stop();
await postgres.stop();
process.exit(run.status ?? 1);
