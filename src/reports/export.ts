import Papa from "papaparse";
import type { ReportResult } from "./query";

/** A text cell a spreadsheet would run as a formula: its first character decides, whatever follows (line breaks too). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A result as RFC 4180 CSV (papaparse): a header row of the result's column names, then
 * its rows; a text cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`
 * (spreadsheet formula injection); numbers and booleans stay as they are.
 */
export function resultCsv(result: Pick<ReportResult, "columns" | "rows">): string {
  const fields = result.columns.map((c) => c.name);
  const data = result.rows.map((row) => fields.map((field) => (row[field] !== null && typeof row[field] === "object" ? JSON.stringify(row[field]) : row[field])));
  return Papa.unparse({ fields, data }, { escapeFormulae: FORMULA_START, newline: "\r\n" }) + "\r\n";
}
