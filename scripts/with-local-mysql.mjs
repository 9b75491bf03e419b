#!/usr/bin/env node
// Runs a command with the MySQL-protocol server the tests use (scripts/lib/local-mysql.mjs):
// `node scripts/with-local-mysql.mjs npx vitest run --project workers test/data/mysql.test.ts`.
// `npm test` does the same for its whole run.
import { spawnSync } from "node:child_process";
import { ensureLocalMysql } from "./lib/local-mysql.mjs";

const server = await ensureLocalMysql();
if (server.skipped) console.log(`local-mysql: ${server.skipped}`);
else {
  process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE_MYSQL = server.connectionString;
  process.env.MYSQL_TEST_ADMIN_URL = server.adminConnectionString;
}
const [command, ...args] = process.argv.slice(2);
const run = spawnSync(command, args, { stdio: "inherit", env: process.env });
await server.stop();
process.exit(run.status ?? 1);
