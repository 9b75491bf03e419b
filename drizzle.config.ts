import { defineConfig } from "drizzle-kit";

// Migrations are generated from src/db/schema.ts (`npm run db:generate`) and applied by
// `wrangler d1 migrations apply` (npm start does it locally).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
