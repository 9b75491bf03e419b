/**
 * What every engine's runner says alike: a viewer's message for a query stopped at the time
 * limit, the ones for a source that cannot be reached as configured, and an error written
 * for the log (each engine then takes its own secrets out of that text).
 */

export const REFUSED_CREDENTIALS = "The database refused the credentials of this data source; the panel could not be loaded.";
export const NO_DATABASE = "The database of this data source does not exist; the panel could not be loaded.";
export const UNREACHABLE = "The database of this data source could not be reached; the panel could not be loaded.";

export function missingNamespace(namespace: string): string {
  return `The namespace '${namespace}' of this data source does not exist; the panel could not be loaded.`;
}

export function timedOut(timeoutMs: number): string {
  const limit = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
  return `The query took longer than ${limit} and was stopped.`;
}

/** An error as one line of text, before its secrets are taken out. */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
