/**
 * What a viewer sees when MySQL or MariaDB refuses or fails, and what the log gets: never the
 * connection string, the password or the account (MySQL names `'user'@'host'` in its own
 * messages, e.g. "Access denied for user …", "SELECT command denied to user …").
 */

import { errorText, missingNamespace, NO_DATABASE, REFUSED_CREDENTIALS, timedOut, UNREACHABLE } from "./run-messages";

interface MysqlError {
  /** The server's error number (absent for network errors). */
  errno?: number;
  /** mysql2's or the socket's code: ER_…, ECONNREFUSED, PROTOCOL_CONNECTION_LOST … */
  code?: string;
  message?: string;
  fatal?: boolean;
}

/** The server's numbers for a statement stopped at its time limit: MariaDB's, MySQL's, and an interrupted query. */
const TIME_LIMIT = new Set([1969, 3024, 1317]);

function parts(error: unknown): MysqlError {
  return (error ?? {}) as MysqlError;
}

/** The connection cannot carry the next panel: lost, refused, or closed after our own deadline. */
export function isMysqlConnectionLost(error: unknown): boolean {
  const { errno, code = "", message = "", fatal } = parts(error);
  if (fatal) return true;
  if (errno !== undefined) return errno === 1045 || errno === 1049 || errno === 1044 || errno === 2013 || errno === 2006;
  return /^(PROTOCOL_|E[A-Z]+$)/.test(code) || /closed|refused|reset|lost|timeout|connect|network/i.test(message);
}

export function mysqlConnectionMessage(error: unknown, namespace?: string | null): string {
  const { errno } = parts(error);
  if (errno === 1045) return REFUSED_CREDENTIALS;
  if (errno === 1049 && namespace) return missingNamespace(namespace);
  if (errno === 1049) return NO_DATABASE;
  if (errno === 1044) return "The database refused this data source access to its database; the panel could not be loaded.";
  return UNREACHABLE;
}

export function mysqlPanelMessage(error: unknown, timeoutMs: number, secrets: string[]): string {
  const { errno, code, message = "" } = parts(error);
  if ((errno !== undefined && TIME_LIMIT.has(errno)) || code === "PROTOCOL_SEQUENCE_TIMEOUT" || /inactivity timeout/i.test(message)) {
    return timedOut(timeoutMs);
  }
  if (isMysqlConnectionLost(error)) return mysqlConnectionMessage(error);
  // The server's own message (e.g. "Cannot execute statement in a READ ONLY transaction").
  if (errno !== undefined) return `The query failed: ${withoutSecrets(message, secrets)}`;
  return "This panel's data could not be loaded.";
}

/** Text without the connection string, the password or the `'user'@'host'` account MySQL names. */
function withoutSecrets(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join("[redacted]");
  return out.replace(/mysql:\/\/[^\s"']+/gi, "mysql://[redacted]").replace(/'[^'@\s]*'@'[^'\s]*'/g, "this data source's account");
}

/** An error's text for the log, without secrets. */
export function redactMysql(error: unknown, secrets: string[]): string {
  return withoutSecrets(errorText(error), secrets);
}
