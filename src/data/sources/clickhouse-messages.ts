/**
 * What a viewer sees when ClickHouse refuses or fails, and what the log gets: never the
 * password, the user or the server's address (ClickHouse names the user in its own messages,
 * e.g. "reader: Authentication failed", "reader: Cannot execute query in readonly mode").
 */

import { errorText, missingNamespace, NO_DATABASE, REFUSED_CREDENTIALS, timedOut, UNREACHABLE } from "./run-messages";

/** ClickHouse's error numbers the messages tell apart. */
const CODE = {
  unknownDatabase: 81,
  timeoutExceeded: 159,
  unknownUser: 192,
  wrongPassword: 193,
  requiredPassword: 194,
  authenticationFailed: 516,
  accessDenied: 497,
} as const;

interface ClickhouseFailure {
  /** ClickHouse's error number as text (the client's ClickHouseError), absent for network errors. */
  code?: string;
  message?: string;
  name?: string;
}

const parts = (error: unknown): ClickhouseFailure => (error ?? {}) as ClickhouseFailure;
const codeOf = (error: unknown): number | undefined => {
  const code = Number(parts(error).code);
  return Number.isInteger(code) && code > 0 ? code : undefined;
};

/** Refused credentials, an unknown database, or no answer: every panel of the source fails the same way. */
export function clickhouseConnectionMessage(error: unknown, namespace?: string | null): string | null {
  const code = codeOf(error);
  if (code === CODE.authenticationFailed || code === CODE.unknownUser || code === CODE.wrongPassword || code === CODE.requiredPassword)
    return REFUSED_CREDENTIALS;
  if (code === CODE.unknownDatabase && namespace) return missingNamespace(namespace);
  if (code === CODE.unknownDatabase) return NO_DATABASE;
  if (code === undefined && !isTimeout(error)) return UNREACHABLE;
  return null;
}

function isTimeout(error: unknown): boolean {
  return codeOf(error) === CODE.timeoutExceeded || /^Timeout error\.$|aborted/i.test(parts(error).message ?? "");
}

/** What a message must not carry: the password anywhere, the user and the server as words. */
export interface ClickhouseSecrets {
  password: string;
  user: string;
  url: string;
}

export function clickhousePanelMessage(error: unknown, timeoutMs: number, secrets: ClickhouseSecrets, namespace?: string | null): string {
  if (isTimeout(error)) return timedOut(timeoutMs);
  const connection = clickhouseConnectionMessage(error, namespace);
  if (connection) return connection;
  // The server's own message (e.g. "Cannot execute query in readonly mode"), without its version line.
  const message = (parts(error).message ?? "").replace(/\s*\(version [^)]*\)\s*$/, "");
  return `The query failed: ${withoutSecrets(message, secrets)}`;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Text without the password, the user (ClickHouse starts some messages with `user: `) or the server's address. */
function withoutSecrets(text: string, { password, user, url }: ClickhouseSecrets): string {
  let out = password ? text.split(password).join("[redacted]") : text;
  if (url) out = out.split(url).join("[redacted]");
  if (user) out = out.replace(new RegExp(`(^|[^A-Za-z0-9_])${escaped(user)}(?![A-Za-z0-9_])`, "g"), "$1this data source's user");
  return out.replace(/https?:\/\/[^\s"']+/gi, "[redacted]").replace(/^this data source's user: /, "");
}

/** An error's text for the log, without secrets. */
export function redactClickhouse(error: unknown, secrets: ClickhouseSecrets): string {
  return withoutSecrets(errorText(error), secrets);
}
