import { config } from "./config";

/**
 * The Worker's bindings and vars as `wrangler types` generates them from wrangler.toml
 * (worker-configuration.d.ts: `npm run types` writes it, `npm test` refuses a stale one),
 * plus what wrangler.toml does not declare: the secrets (.dev.vars locally, `wrangler
 * secret put` deployed) and LOG_LEVEL. Vars are read through src/config.ts (parsed, with
 * their defaults), not straight from here.
 */
export interface Env extends Omit<Cloudflare.Env, "BROWSER"> {
  /** Generated as `BrowserRun`; @cloudflare/puppeteer takes the same binding as a Fetcher. */
  BROWSER: Fetcher;
  ADMIN_TOKEN?: string;
  CUSTOMER_TOKEN_SECRET?: string;
  EMBED_TOKEN_SECRET?: string;
  /** 32 random bytes, base64: seals the passwords of ClickHouse data sources (lib/secret-box.ts). */
  DATA_SOURCE_KEY?: string;
  LOG_LEVEL?: string;
}

export const MISSING_EMBED_SECRET =
  "EMBED_TOKEN_SECRET is not set for this environment, so signed embed tokens can be neither minted nor opened; set it with `wrangler secret put EMBED_TOKEN_SECRET --env <environment>`.";

/**
 * Secrets this environment lacks. Only development may run on known stand-ins (the local
 * embed secret); anywhere else their features answer 500 naming the secret instead.
 */
export function missingSecrets(env: Pick<Env, "EMBED_TOKEN_SECRET">): string[] {
  if (config(env).ENVIRONMENT === "development") return [];
  return env.EMBED_TOKEN_SECRET ? [] : [MISSING_EMBED_SECRET];
}
