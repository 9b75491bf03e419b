import { applyD1Migrations, env } from "cloudflare:test";

// Setup files run before each test file; applying is idempotent.
const bindings = env as unknown as { DB: D1Database; TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] };
await applyD1Migrations(bindings.DB, bindings.TEST_MIGRATIONS);
