import { config } from "../../config";
import { destinationProblem, resolvedDestinationProblem } from "../../lib/destination-policy";
import { open, seal, secretKeyProblem } from "../../lib/secret-box";

/**
 * A ClickHouse data source's server (docs/clickhouse.md): `https://host[:port]` under the
 * destination rules of webhooks (lib/destination-policy.ts; plain http only to 127.0.0.1 or
 * localhost in development), a user, and a password that is written once and never answered:
 * stored sealed under the secret DATA_SOURCE_KEY (lib/secret-box.ts) and opened only for the
 * request that runs a panel.
 */
export interface StoredConnection {
  url: string;
  database: string | null;
  user: string;
  /** Sealed (`v1.…`), never plain. */
  password: string;
}

/** What an administrator gives; on update, what is absent stays (a new password replaces the old one). */
export interface ConnectionInput {
  url?: string;
  database?: string | null;
  user?: string;
  password?: string;
}

/** What answers show: the password only as `password_set`. */
export interface ConnectionInfo {
  url: string;
  database: string | null;
  user: string;
  password_set: true;
}

export function connectionInfo(stored: StoredConnection): ConnectionInfo {
  return { url: stored.url, database: stored.database, user: stored.user, password_set: true };
}

/** A refusal of the connection: the field it concerns and why (the admin API answers 400 or 503). */
export type ConnectionProblem = { field: string; message: string; keyMissing?: true };

const rules = (env: object) => {
  const vars = config(env);
  return { development: vars.ENVIRONMENT === "development", resolverUrl: vars.DNS_RESOLVER_URL };
};

/** The URL's own shape: scheme, host and port only (a path, query, fragment or credentials in it are refused). */
function urlShapeProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "it is not a URL";
  }
  if (parsed.username || parsed.password) return "it must not carry a user name or password (give `user` and `password`)";
  if (parsed.pathname !== "/" || parsed.search || parsed.hash || /[?#]/.test(url))
    return "it must be https://host[:port], nothing after the port";
  return null;
}

/**
 * The connection to store: `input` over `previous` (update), the URL checked (also by the
 * addresses its name resolves to when DNS_RESOLVER_URL is set), the password sealed.
 */
export async function connectionToStore(
  env: { DATA_SOURCE_KEY?: string },
  input: ConnectionInput,
  previous?: StoredConnection | null,
): Promise<StoredConnection | ConnectionProblem> {
  const url = input.url ?? previous?.url;
  const user = input.user ?? previous?.user;
  if (!url) return { field: "connection.url", message: "connection.url: required for a ClickHouse data source." };
  if (!user) return { field: "connection.user", message: "connection.user: required for a ClickHouse data source." };
  const refused = urlShapeProblem(url) ?? (await resolvedDestinationProblem(url, rules(env)));
  if (refused) return { field: "connection.url", message: `connection.url is refused: ${refused}.` };
  if (input.password === undefined && !previous)
    return { field: "connection.password", message: "connection.password: required for a ClickHouse data source." };
  const keyProblem = secretKeyProblem(env.DATA_SOURCE_KEY);
  if (keyProblem && (input.password !== undefined || !previous)) {
    return {
      field: "connection.password",
      message: `The secret DATA_SOURCE_KEY ${keyProblem} (32 random bytes, base64: \`wrangler secret put DATA_SOURCE_KEY\`), so a password cannot be stored; nothing was stored.`,
      keyMissing: true,
    };
  }
  const password =
    input.password !== undefined ? await seal(env.DATA_SOURCE_KEY as string, input.password) : (previous as StoredConnection).password;
  const database = input.database !== undefined ? input.database : (previous?.database ?? null);
  return { url: url.replace(/\/+$/, ""), database, user, password };
}

/** The server to send a panel to, with its password opened; or why it cannot be reached (a message for the log, never a secret). */
export async function openConnection(
  env: { DATA_SOURCE_KEY?: string },
  stored: StoredConnection | null | undefined,
): Promise<{ url: string; database: string | null; user: string; password: string } | { problem: string }> {
  if (!stored) return { problem: "the data source has no connection" };
  // Checked again at every run: a URL stored under another ENVIRONMENT is never called.
  const refused = urlShapeProblem(stored.url) ?? destinationProblem(stored.url, rules(env));
  if (refused) return { problem: `its url is refused: ${refused}` };
  if (secretKeyProblem(env.DATA_SOURCE_KEY)) return { problem: "the secret DATA_SOURCE_KEY is not set" };
  const password = await open(env.DATA_SOURCE_KEY as string, stored.password);
  if (password === null) return { problem: "its password does not open under DATA_SOURCE_KEY (was the key changed?)" };
  return { url: stored.url, database: stored.database, user: stored.user, password };
}
