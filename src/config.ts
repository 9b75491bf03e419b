import { z } from "zod";

/**
 * The Worker's vars (wrangler.toml, .dev.vars), validated once per isolate: each is text in
 * the environment, parsed here into numbers, booleans and enums with their defaults, so a
 * typo in a deployment answers with the var's name instead of quietly using a fallback.
 */
const count = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const positive = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

const Vars = z.object({
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
});

export type Config = z.output<typeof Vars>;

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
      const problems = outcome.error.issues.map((issue) => `${issue.path.join(".")} is ${JSON.stringify(vars[String(issue.path[0])])}: ${issue.message}`);
      throw new ConfigError(`Invalid configuration: ${problems.join("; ")}.`);
    }
    result = outcome.data;
    parsed.set(env, result);
  }
  return result;
}

function emptyAsAbsent(value: unknown): unknown {
  return typeof value === "string" && value.trim() === "" ? undefined : value;
}
