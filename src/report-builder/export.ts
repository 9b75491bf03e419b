import { csvOf } from "../lib/csv";
import type { ReportResult } from "./query";

/**
 * A result as RFC 4180 CSV (papaparse): a header row of the result's column names, then
 * its rows; a text cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`
 * (spreadsheet formula injection); numbers and booleans stay as they are.
 */
export function resultCsv(result: Pick<ReportResult, "columns" | "rows">): string {
  const fields = result.columns.map((c) => c.name);
  const data = result.rows.map((row) =>
    fields.map((field) => (row[field] !== null && typeof row[field] === "object" ? JSON.stringify(row[field]) : row[field])),
  );
  return csvOf(fields, data);
}
