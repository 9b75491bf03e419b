// D1 reports constraint failures only in the error's text; these are the one place that reads it.

/** A UNIQUE constraint refused the write (on `column`, "table.column", when given). */
export function isUniqueViolation(error: unknown, column?: string): boolean {
  return String(error).includes(column ? `UNIQUE constraint failed: ${column}` : "UNIQUE constraint failed");
}

/** A FOREIGN KEY constraint refused the write (e.g. the row it points at was deleted meanwhile). */
export function isForeignKeyViolation(error: unknown): boolean {
  return String(error).includes("FOREIGN KEY constraint failed");
}
