import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Tests run inside workerd with the real local bindings of wrangler.toml (D1, KV, R2,
// Queues, Durable Objects, send_email, Browser Rendering): nothing of ours is mocked.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: "test-admin-token",
            CUSTOMER_TOKEN_SECRET: "test-customer-token-secret",
            LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      exclude: ["test/e2e/**"],
      setupFiles: ["./test/helpers/apply-migrations.ts"],
      testTimeout: 20_000,
    },
  };
});
