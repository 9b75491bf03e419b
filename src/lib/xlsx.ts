import writeXlsxFile, { type Cell, type Row } from "write-excel-file/node";

/**
 * Spreadsheets (.xlsx) with typed cells, written by `write-excel-file` — its `node` build,
 * which zips in the calling thread through fflate's streaming `ZipDeflate` over node:stream
 * and node:buffer (nodejs_compat). Its `universal` and `browser` builds zip with fflate's
 * async `zip()`, which hands every file over 160 KB (a sheet of a few thousand rows) to a Web
 * Worker: Workers have none, so a large sheet failed with "Worker is not defined".
 * Chosen over SheetJS (not on the npm registry any more) and ExcelJS (Node streams and
 * a far larger bundle) — docs/report-builder.md has the measured bundle cost.
 *
 * Numbers are number cells, booleans boolean cells, DATE/DATETIME/TIMESTAMP values real
 * date cells (UTC wall-clock time, as the API answers them), everything else text.
 * A text cell is always a string in the file, never a formula, so `=…` is harmless here.
 */

/** The column types of a blueprint (section 5 of the contract); absent = by each value. */
export type XlsxColumnType = "INTEGER" | "FLOAT" | "BOOLEAN" | "STRING" | "DATETIME" | "TIMESTAMP" | "DATE";

export interface XlsxColumn {
  name: string;
  display_name?: string;
  type?: XlsxColumnType;
}

export interface XlsxSheet {
  name: string;
  columns: XlsxColumn[];
  rows: Record<string, unknown>[];
}

export const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

const DATE_FORMAT = "yyyy-mm-dd";
const DATETIME_FORMAT = "yyyy-mm-dd hh:mm:ss";

/** One workbook: a sheet per entry, a bold header row of display names, then one row per row. */
export async function xlsx(sheets: XlsxSheet[]): Promise<Uint8Array> {
  const names = sheetNames(sheets.map((sheet) => sheet.name));
  const blob = await writeXlsxFile(
    sheets.map((sheet, i) => ({
      sheet: names[i],
      data: [
        sheet.columns.map((column): Cell => ({ value: column.display_name ?? column.name, fontWeight: "bold" })),
        ...sheet.rows.map((row): Row => sheet.columns.map((column) => cell(row[column.name], column.type))),
      ],
      columns: sheet.columns.map((column) => ({ width: columnWidth(column, sheet.rows) })),
      stickyRowsCount: 1,
    })),
  ).toBuffer();
  return new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength);
}

function cell(value: unknown, type: XlsxColumnType | undefined): Cell {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "INTEGER":
    case "FLOAT":
      return numberCell(value);
    case "BOOLEAN":
      return booleanCell(value);
    case "DATE":
      return dateCell(value, DATE_FORMAT);
    case "DATETIME":
    case "TIMESTAMP":
      return dateCell(value, DATETIME_FORMAT);
    case "STRING":
      return textCell(value);
    default:
      if (typeof value === "number") return numberCell(value);
      if (typeof value === "boolean") return value;
      return textCell(value);
  }
}

/** A number cell; a value that is not an exact finite number (a huge bigint as text) stays text. */
function numberCell(value: unknown): Cell {
  const number = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (!Number.isFinite(number) || (typeof value === "string" && String(number) !== value.trim())) return textCell(value);
  return number;
}

function booleanCell(value: unknown): Cell {
  if (typeof value === "boolean") return value;
  if (value === 1 || value === "1" || value === "true") return true;
  if (value === 0 || value === "0" || value === "false") return false;
  return textCell(value);
}

const ISO_DATE = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/;

/**
 * A date cell. Excel has no time zones: the cell holds the UTC wall-clock time, which is
 * what the API and CSV show. Text that is not an ISO 8601 date stays text.
 */
function dateCell(value: unknown, format: string): Cell {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : { value, type: Date, format };
  const text = String(value).trim();
  const match = ISO_DATE.exec(text);
  if (!match) return textCell(value);
  const date = match[8]
    ? new Date(text.replace(" ", "T"))
    : new Date(
        Date.UTC(
          +match[1],
          +match[2] - 1,
          +match[3],
          +(match[4] ?? 0),
          +(match[5] ?? 0),
          +(match[6] ?? 0),
          Math.round(Number(match[7] ?? 0) * 1000),
        ),
      );
  if (Number.isNaN(date.getTime())) return textCell(value);
  return { value: date, type: Date, format };
}

function textCell(value: unknown): Cell {
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return { value: text, type: String };
}

/** Wide enough for the header and the first rows' values (in characters), within 8–60. */
function columnWidth(column: XlsxColumn, rows: Record<string, unknown>[]): number {
  let widest = (column.display_name ?? column.name).length;
  for (const row of rows.slice(0, 200)) {
    const value = row[column.name];
    if (value !== null && value !== undefined) widest = Math.max(widest, String(value).length);
  }
  if (column.type === "DATETIME" || column.type === "TIMESTAMP") widest = Math.max(widest, 19);
  return Math.min(60, Math.max(8, widest + 2));
}

/**
 * Names Excel accepts: at most 31 characters, none of `[]:*?/\`, not empty, not starting or
 * ending with `'`, unique regardless of case (a clash gets " (2)", " (3)", …).
 */
export function sheetNames(wanted: string[]): string[] {
  const taken = new Set<string>();
  // Excel refuses these in a sheet name, control characters included; they are replaced.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: naming control characters is this pattern's job
  const notInSheetNames = /[[\]:*?/\\\u0000-\u001f]/g;
  return wanted.map((name) => {
    const clean =
      name
        .replace(notInSheetNames, " ")
        .replace(/^'+|'+$/g, "")
        .trim() || "Sheet";
    let candidate = clean.slice(0, 31).trim();
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      candidate = clean.slice(0, 31 - suffix.length).trim() + suffix;
    }
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}
