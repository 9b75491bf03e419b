/** Structured JSON logs: one object per line, never secrets (tokens are never passed here). */
export type LogLevel = "debug" | "info" | "warn" | "error";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold = rank.info;

/** LOG_LEVEL var: debug, info (default), warn or error. */
export function setLogLevel(level: string | undefined): void {
  threshold = rank[(level ?? "info") as LogLevel] ?? rank.info;
}

export function log(level: LogLevel, message: string, fields: Record<string, unknown> = {}): void {
  if (rank[level] < threshold) return;
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** What a caught error says, for a log line or a failure's detail (anything may be thrown). */
export function errorDetail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
