import type { PanelTable } from "../../dashboards/customer-dashboard";
import { xlsx, type XlsxColumn, type XlsxSheet } from "../../lib/xlsx";

/**
 * A dashboard as one workbook: a sheet per data panel, named by its title. Panel queries
 * answer untyped rows, so each column's type is read from its values: numbers stay numbers
 * (the writer's default), and a column whose every value is an ISO date (or date and time)
 * becomes real date cells. A panel without data gets a sheet that says why.
 */
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

function columnsOf(rows: Record<string, unknown>[]): XlsxColumn[] {
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return names.map((name) => {
    const values = rows.map((row) => row[name]).filter((v) => v !== null && v !== undefined);
    const texts = values.every((v) => typeof v === "string") && values.length > 0;
    if (texts && values.every((v) => DATE.test(v as string))) return { name, type: "DATE" };
    if (texts && values.every((v) => DATETIME.test(v as string))) return { name, type: "DATETIME" };
    return { name };
  });
}

export function dashboardSheets(tables: PanelTable[]): XlsxSheet[] {
  return tables.map((table) =>
    table.problem !== undefined
      ? { name: table.title, columns: [{ name: "message" }], rows: [{ message: table.problem }] }
      : { name: table.title, columns: columnsOf(table.rows), rows: table.rows },
  );
}

export async function dashboardWorkbook(tables: PanelTable[]): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await xlsx(dashboardSheets(tables)));
}
