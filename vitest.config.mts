import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { browserScriptsAsTextForVite, buildBrowserScripts } from "./scripts/lib/browser-build.mjs";
import { projectCacheHome } from "./scripts/lib/cache-home.mjs";
import { webhookReceiver } from "./test/helpers/webhook-receiver";
import { dnsResolver } from "./test/helpers/dns-resolver";

// Tests run inside workerd with the real local bindings of wrangler.toml (D1, KV, R2,
// Queues, Durable Objects, send_email, Browser Rendering): nothing of ours is mocked.
// Each test file gets its own storage. Three projects:
//   workers — the API with the default settings of wrangler.toml
//   limits  — the same Worker with small limits (paid customers, rate limits) and
//             EMBED_REQUIRE_SIGNED=true (signed embed tokens only)
//   e2e     — Node.js tests that run `npm start` itself (restart keeps data)
// PostgreSQL data sources that cannot work, for the tests of their messages: nothing listens on
// the port (a stopped server), and the right server with a wrong password. WAREHOUSE itself is
// the local database of wrangler.toml (or CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE).
const warehouse = new URL(process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE || "postgresql://warehouse:warehouse_local@localhost:5432/warehouse");
const stopped = new URL(warehouse);
stopped.port = "1";
const wrongPassword = new URL(warehouse);
wrongPassword.password = "not-the-password";
// The same for the MySQL binding WAREHOUSE_MYSQL, and the writing account the MySQL tests set
// their data up with (MYSQL_TEST_ADMIN_URL, from scripts/lib/local-mysql.mjs: `npm test` or
// scripts/with-test-databases.mjs). Without it those tests are reported skipped.
const warehouseMysql = new URL(process.env.CLOUDFLARE_HYPERDRIVE_LOCAL_CONNECTION_STRING_WAREHOUSE_MYSQL || "mysql://warehouse:warehouse_local@localhost:3306/warehouse");
const mysqlStopped = new URL(warehouseMysql);
mysqlStopped.port = "1";
const mysqlWrongPassword = new URL(warehouseMysql);
mysqlWrongPassword.password = "not-the-password";
const mysqlAdmin: Record<string, string> = process.env.MYSQL_TEST_ADMIN_URL ? { WAREHOUSE_MYSQL_ADMIN: process.env.MYSQL_TEST_ADMIN_URL } : {};
// The ClickHouse server of this run (scripts/lib/local-clickhouse.mjs: `npm test` or
// scripts/with-test-databases.mjs): where it is, the account panels run as, and the one the
// tests set their data up with. Without it the ClickHouse tests are reported skipped.
const clickhouse: Record<string, string> = Object.fromEntries(
  ["CLICKHOUSE_TEST_SERVER", "CLICKHOUSE_TEST_USER", "CLICKHOUSE_TEST_PASSWORD", "CLICKHOUSE_TEST_ADMIN_USER", "CLICKHOUSE_TEST_ADMIN_PASSWORD"]
    .filter((name) => process.env[name] !== undefined)
    .map((name) => [name, process.env[name] as string]),
);

// Browser Rendering's Chrome comes from this checkout's cache (scripts/ensure-chrome.mjs), also
// when vitest is started without `npm test`.
process.env.XDG_CACHE_HOME = projectCacheHome;

// The Worker's libraries, pre-bundled for the workerd test runtime (see `deps` below). A library
// missing here still works, only loaded file by file. (write-excel-file/node is left out: its
// node: imports cannot be bundled for the browser-like optimizer.)
// They live with this checkout's build output, not in node_modules/.vite (several checkouts may
// share one node_modules).
const cacheDir = ".build/vite";
const prebundledLibraries = [
  "@hono/zod-openapi",
  "croner",
  "drizzle-orm",
  "drizzle-orm/batch",
  "drizzle-orm/d1",
  "drizzle-orm/pg-core",
  "drizzle-orm/sqlite-core",
  "echarts/charts",
  "echarts/components",
  "echarts/core",
  "echarts/renderers",
  "hono",
  "hono/http-exception",
  "hono/jwt",
  "mimetext/browser",
  "papaparse",
  "zod",
];

export default defineConfig(async () => {
  // The scripts the browser runs, built from src/**/browser/ (scripts/build-browser.mjs): the
  // Worker imports them as text, and the e2e tests compare what the server serves with them.
  await buildBrowserScripts();
  const migrations = await readD1Migrations("./migrations");
  const worker = (name: string, include: string[], vars: Record<string, string> = {}) => ({
    cacheDir,
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // A second data-source database, so tests can tell data sources apart.
          d1Databases: { OTHER_DATA: "other-data" },
          hyperdrives: {
            WAREHOUSE_STOPPED: stopped.href,
            WAREHOUSE_WRONG_PASSWORD: wrongPassword.href,
            WAREHOUSE_MYSQL_STOPPED: mysqlStopped.href,
            WAREHOUSE_MYSQL_WRONG_PASSWORD: mysqlWrongPassword.href,
            ...mysqlAdmin,
          },
          // Outbound fetches reach a stand-in webhook receiver or DNS-over-HTTPS resolver (other hosts pass through).
          outboundService: (request) => (new URL(request.url).hostname === "dns.test" ? dnsResolver(request) : webhookReceiver(request)),
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: "test-admin-token",
            CUSTOMER_TOKEN_SECRET: "test-customer-token-secret",
            EMBED_TOKEN_SECRET: "test-embed-token-secret",
            // Seals ClickHouse data sources' passwords (32 bytes, base64); the limits project runs without it.
            ...(name === "limits" ? {} : { DATA_SOURCE_KEY: "dGVzdC1kYXRhLXNvdXJjZS1rZXktMzItYnl0ZXMhISE=" }),
            ...clickhouse,
            LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
            // A real WOFF2 font (Open Sans, Apache 2.0) for the theme tests that draw with one.
            TEST_THEME_FONT_BASE64: readFileSync("./examples/themes/open-sans-regular.woff2").toString("base64"),
            ...vars,
          },
        },
      }),
      // The built browser scripts, imported as their text (as wrangler.toml's [[rules]] make the Worker do).
      browserScriptsAsTextForVite,
    ],
    test: {
      name,
      include,
      exclude: ["test/e2e/**", ...(name === "workers" ? ["test/limits/**"] : [])],
      setupFiles: ["./test/helpers/apply-migrations.ts"],
      // Every test file starts its own workerd, which loads the Worker module by module; the
      // libraries are bundled once per run instead (hundreds of echarts/zrender/drizzle files
      // become one each), which cuts each file's start by about a third (docs/architecture.md#tests).
      deps: { optimizer: { ssr: { enabled: true, include: prebundledLibraries } } },
      testTimeout: 30_000,
    },
  });
  return {
    cacheDir,
    test: {
      // Two test files at a time (vitest's default is one on a 2-core machine): the end-to-end
      // files mostly wait for servers and browsers, so another file runs meanwhile.
      maxWorkers: 2,
      projects: [
        worker("workers", ["test/**/*.test.ts"]),
        worker("limits", ["test/limits/**/*.test.ts"], {
          PAID_CUSTOMER_LIMIT: "3",
          RATE_LIMIT_PER_MINUTE: "40",
          DELIVERY_LIMIT_PER_MINUTE: "5",
          EMBED_REQUIRE_SIGNED: "true",
        }),
        // The e2e files run after the workerd files, two at a time (they mostly wait for servers
        // and browsers): the workerd files, some of which time their requests, keep the
        // machine's CPU to themselves. Two `npm start` at once once failed on the local
        // PostgreSQL: a reachability check misread a blocked event loop, fixed in
        // scripts/lib/local-postgres.mjs.
        {
          test: {
            name: "e2e",
            include: ["test/e2e/**/*.test.ts"],
            environment: "node",
            testTimeout: 180_000,
            hookTimeout: 180_000,
            maxWorkers: 2,
            sequence: { groupOrder: 1 },
          },
        },
      ],
    },
  };
});
