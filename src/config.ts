import { z } from "zod";

/**
 * The Worker's vars (wrangler.toml, .dev.vars), validated once per isolate: each is text in
 * the environment, parsed here into numbers, booleans and enums with their defaults, so a
 * typo in a deployment answers with the var's name instead of quietly using a fallback.
 * Request handlers, the queue consumer and the cron handler all read their vars here.
 */
const count = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const positive = (fallback: number) => z.coerce.number().int().min(1).default(fallback);
/** "true" or "false" (a TOML boolean arrives as a boolean); absent = the default below. */
const flag = z.preprocess(
  (value) => (typeof value === "boolean" ? String(value) : value),
  z.enum(["true", "false"], { error: 'must be "true" or "false"' }).optional(),
);

const Vars = z.object({
  /**
   * Which deployment this is. Behaviour is switched by the flags below, not by this name;
   * the name only picks their defaults, and the contract ties the local stand-ins for
   * missing secrets (the development embed secret) to `development`.
   */
  ENVIRONMENT: z.enum(["development", "staging", "production"]).default("production"),
  /** Round-trip and query-cache headers on every response, counted KV/R2/queue calls. */
  DIAGNOSTICS: flag,
  /** Test faults in delivery (KV `fault:<point>` counters make a capture or send fail). */
  FAULT_INJECTION: flag,
  /** The `/_dev/` routes (benchmark floors, the local outbox) and the outbox kept in R2. */
  DEV_ROUTES: flag,
  /** 0 = unlimited. */
  PAID_CUSTOMER_LIMIT: count(0),
  RATE_LIMIT_PER_MINUTE: positive(600),
  DELIVERY_LIMIT_PER_MINUTE: positive(20),
  BUILDER_REQUESTS_PER_MINUTE: positive(300),
  QUERY_TIMEOUT_MS: positive(10_000),
  QUERY_ROW_LIMIT: positive(10_000),
  /** KV keeps an entry at least 60 s (its smallest expirationTtl). */
  DOWNLOAD_TTL_SECONDS: z.coerce.number().int().min(60).default(900),
  SHARE_TTL_SECONDS: z.coerce.number().int().min(60).default(604_800),
  CAPTURE_STATIONS: positive(1),
  /** How long a location keeps what a view reads of its customer (docs/edge.md#the-revocation-window); 0 = not kept. */
  VIEWER_CACHE_SECONDS: count(10),
  /** The embed page refuses `customer_token` and takes signed embed tokens only. */
  EMBED_REQUIRE_SIGNED: flag.transform((value) => value === "true"),
  /** Report e-mails' dashboard image. */
  REPORT_IMAGE_FORMAT: z.enum(["png", "jpeg"]).default("png"),
  MAIL_FROM: z.string().min(3).default("reports@example.com"),
  /** `frame-ancestors` of embed and share pages unless an embed token names its own. */
  FRAME_ANCESTORS: z.string().trim().default("'none'"),
  /**
   * A DNS-over-HTTPS resolver's JSON endpoint (e.g. https://cloudflare-dns.com/dns-query):
   * webhook destinations are then also judged by the addresses their names resolve to.
   * Absent: by their spelling only (src/lib/destination-policy.ts).
   */
  DNS_RESOLVER_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

type Parsed = z.output<typeof Vars>;
export type Config = Omit<Parsed, "DIAGNOSTICS" | "FAULT_INJECTION" | "DEV_ROUTES"> & {
  DIAGNOSTICS: boolean;
  FAULT_INJECTION: boolean;
  DEV_ROUTES: boolean;
};

/** A var that does not parse; the message names it and says what it must be. */
export class ConfigError extends Error {}

const parsed = new WeakMap<object, Config>();

/** The vars of this env, parsed on first use (the isolate keeps one env object). */
export function config(env: object): Config {
  let result = parsed.get(env);
  if (!result) {
    // An empty var counts as absent (its default), as wrangler leaves unset vars out.
    const vars = Object.fromEntries(Object.keys(Vars.shape).map((name) => [name, emptyAsAbsent((env as Record<string, unknown>)[name])]));
    const outcome = Vars.safeParse(vars);
    if (!outcome.success) {
      const problems = outcome.error.issues.map(
        (issue) => `${issue.path.join(".")} is ${JSON.stringify(vars[String(issue.path[0])])}: ${issue.message}`,
      );
      throw new ConfigError(`Invalid configuration: ${problems.join("; ")}.`);
    }
    result = withSwitches(outcome.data);
    parsed.set(env, result);
  }
  return result;
}

/**
 * A switch not set is on where the contract wants it by default: diagnostics and test
 * faults outside production, the `/_dev/` routes in development only. wrangler.toml sets
 * them per environment; this is the one place that looks at the environment's name for it.
 */
function withSwitches(vars: Parsed): Config {
  const on = (value: "true" | "false" | undefined, fallback: boolean) => (value === undefined ? fallback : value === "true");
  const production = vars.ENVIRONMENT === "production";
  return {
    ...vars,
    DIAGNOSTICS: on(vars.DIAGNOSTICS, !production),
    FAULT_INJECTION: on(vars.FAULT_INJECTION, !production),
    DEV_ROUTES: on(vars.DEV_ROUTES, vars.ENVIRONMENT === "development"),
  };
}

function emptyAsAbsent(value: unknown): unknown {
  return typeof value === "string" && value.trim() === "" ? undefined : value;
}
