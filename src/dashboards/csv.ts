import { csvOf } from "../lib/csv";

/**
 * RFC 4180 CSV with a header row; a text cell starting with `=`, `+`, `-`, `@`, tab or CR
 * gets a leading `'` whatever follows (lib/csv.ts), so spreadsheets do not run it as a
 * formula. Numbers stay numbers.
 */
export function rowsToCsv(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return "";
  const fields = Object.keys(rows[0]);
  const data = rows.map((row) =>
    fields.map((field) => {
      const value = row[field];
      return value !== null && typeof value === "object" ? JSON.stringify(value) : value;
    }),
  );
  return csvOf(fields, data);
}
