import Papa from "papaparse";

/**
 * A text cell a spreadsheet would run as a formula: its first character decides, whatever
 * follows, line breaks included (papaparse's own default pattern, `/^[=+\-@\t\r].*$/`, has no
 * `s` flag and misses a value with a line break).
 */
export const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180 CSV (papaparse) with a header row and CRLF line ends; a text cell starting with
 * `=`, `+`, `-`, `@`, tab or CR gets a leading `'`; numbers and booleans stay as they are.
 */
export function csvOf(fields: string[], data: unknown[][]): string {
  return `${Papa.unparse({ fields, data }, { escapeFormulae: FORMULA_START, newline: "\r\n" })}\r\n`;
}
