/** Bindings and vars of wrangler.toml, plus the secrets kept in .dev.vars locally. */
export interface Env {
  DB: D1Database;
  DEMO_DATA: D1Database;
  DOWNLOADS: KVNamespace;
  FILES: R2Bucket;
  DELIVERY_QUEUE: Queue;
  BROWSER: Fetcher;
  EMAIL: SendEmail;
  /** The ApiTokenGuard Durable Object; http/auth.ts is the one place that talks to it. */
  API_TOKEN_GUARD: DurableObjectNamespace;
  /** Capture stations (delivery/run/browser.ts): Durable Objects that keep a warm browser tab. */
  CAPTURE_STATION: DurableObjectNamespace;
  /** PostgreSQL through Hyperdrive, for `postgres` data sources. */
  WAREHOUSE?: Hyperdrive;

  ENVIRONMENT: string;
  PAID_CUSTOMER_LIMIT?: string;
  RATE_LIMIT_PER_MINUTE?: string;
  DELIVERY_LIMIT_PER_MINUTE?: string;
  DOWNLOAD_TTL_SECONDS?: string;
  SHARE_TTL_SECONDS?: string;
  MAIL_FROM?: string;
  REPORT_IMAGE_FORMAT?: string;
  FRAME_ANCESTORS?: string;
  /** "true": the embed page refuses `customer_token` and takes signed embed tokens only. */
  EMBED_REQUIRE_SIGNED?: string;
  LOG_LEVEL?: string;
  /** PostgreSQL data sources: statement timeout and rows kept per panel. */
  QUERY_TIMEOUT_MS?: string;
  QUERY_ROW_LIMIT?: string;
  /** Report-builder requests per customer per minute (default 300). */
  BUILDER_REQUESTS_PER_MINUTE?: string;
  /** How many capture stations (each one browser) share the delivery jobs; default 1. */
  CAPTURE_STATIONS?: string;

  ADMIN_TOKEN?: string;
  CUSTOMER_TOKEN_SECRET?: string;
  EMBED_TOKEN_SECRET?: string;
}

export const MISSING_EMBED_SECRET =
  "EMBED_TOKEN_SECRET is not set for this environment, so signed embed tokens can be neither minted nor opened; set it with `wrangler secret put EMBED_TOKEN_SECRET --env <environment>`.";

/**
 * Secrets this environment lacks. Only development may run on known stand-ins (the local
 * embed secret); anywhere else their features answer 500 naming the secret instead.
 */
export function missingSecrets(env: Pick<Env, "ENVIRONMENT" | "EMBED_TOKEN_SECRET">): string[] {
  if (env.ENVIRONMENT === "development") return [];
  return env.EMBED_TOKEN_SECRET ? [] : [MISSING_EMBED_SECRET];
}
