import readXlsxFile from "read-excel-file/universal";
import { describe, expect, it } from "vitest";
import { sheetNames, xlsx } from "../../src/lib/xlsx";
import { zipEntries } from "./zip-entries";

/** The workbook as a reader sees it: every sheet's name and cells. */
async function open(bytes: Uint8Array) {
  return readXlsxFile(new Blob([bytes]));
}

describe("xlsx: spreadsheets with typed cells", () => {
  it("writes a sheet of 10,000 rows inside workerd (a sheet file over 160 KB, which the browser build would compress in a Web Worker Workers do not have)", async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: i + 1, day: "2026-01-05", product: `Product ${i % 7}`, amount: i * 1.5 }));
    const bytes = await xlsx([
      {
        name: "Big",
        columns: [
          { name: "id", type: "INTEGER" },
          { name: "day", type: "DATE" },
          { name: "product", type: "STRING" },
          { name: "amount", type: "FLOAT" },
        ],
        rows,
      },
    ]);
    const files = await zipEntries(bytes);
    const sheet = files.get("xl/worksheets/sheet1.xml")!;
    expect(sheet.length).toBeGreaterThan(160_000);
    // Every row is there; the last one with its number cells (no t="s"/inlineStr type) and its text.
    expect(sheet.match(/<row /g)).toHaveLength(10_001);
    const last = sheet.slice(sheet.lastIndexOf("<row "));
    expect(last).toMatch(/<c r="A10001"[^>]*><v>10000<\/v><\/c>/);
    expect(last).toMatch(/<c r="D10001"[^>]*><v>14998.5<\/v><\/c>/);
    expect(last).not.toMatch(/<c r="[AD]10001"[^>]* t="/);
    expect(sheet + (files.get("xl/sharedStrings.xml") ?? "")).toContain("Product 4");
  });

  it("writes numbers as numbers, booleans as booleans, dates as dates and text as text, under display names", async () => {
    const bytes = await xlsx([
      {
        name: "Orders",
        columns: [
          { name: "day", display_name: "Day", type: "DATE" },
          { name: "at", display_name: "Placed at", type: "DATETIME" },
          { name: "product", display_name: "Product", type: "STRING" },
          { name: "amount", display_name: "Amount", type: "FLOAT" },
          { name: "units", type: "INTEGER" },
          { name: "paid", display_name: "Paid", type: "BOOLEAN" },
        ],
        rows: [
          { day: "2026-03-29", at: "2026-03-29T01:30:00.000Z", product: '=HYPERLINK("x")', amount: 12.5, units: 3, paid: 1 },
          { day: null, at: "2026-12-31T23:59:59Z", product: "Seats", amount: -4, units: 9007199254740991, paid: false },
        ],
      },
    ]);
    // A real zip (PK) that a reader opens.
    expect([...bytes.slice(0, 2)]).toEqual([0x50, 0x4b]);
    const [sheet] = await open(bytes);
    expect(sheet.sheet).toBe("Orders");
    expect(sheet.data[0]).toEqual(["Day", "Placed at", "Product", "Amount", "units", "Paid"]);
    const [first, second] = sheet.data.slice(1);
    expect(first[0]).toBeInstanceOf(Date);
    expect((first[0] as unknown as Date).toISOString()).toBe("2026-03-29T00:00:00.000Z");
    expect((first[1] as unknown as Date).toISOString()).toBe("2026-03-29T01:30:00.000Z");
    // Text stays text: a formula-looking value is not a formula in the file.
    expect(first[2]).toBe('=HYPERLINK("x")');
    expect(first[3]).toBe(12.5);
    expect(first[4]).toBe(3);
    expect(first[5]).toBe(true);
    expect(second[0]).toBeNull();
    expect((second[1] as unknown as Date).toISOString()).toBe("2026-12-31T23:59:59.000Z");
    expect(second[3]).toBe(-4);
    expect(second[4]).toBe(9007199254740991);
    expect(second[5]).toBe(false);
  });

  it("keeps a value that is not of its column's type as text instead of losing it", async () => {
    const [sheet] = await open(
      await xlsx([
        {
          name: "x",
          columns: [
            { name: "n", type: "INTEGER" },
            { name: "d", type: "DATE" },
          ],
          rows: [{ n: "12345678901234567890", d: "soon" }],
        },
      ]),
    );
    expect(sheet.data[1]).toEqual(["12345678901234567890", "soon"]);
  });

  it("types cells by their values when a column has no type (dashboard panels)", async () => {
    const [sheet] = await open(
      await xlsx([{ name: "Panel", columns: [{ name: "month" }, { name: "revenue" }], rows: [{ month: "2026-01", revenue: 120 }] }]),
    );
    expect(sheet.data).toEqual([
      ["month", "revenue"],
      ["2026-01", 120],
    ]);
  });

  it("writes one sheet per entry, with names Excel accepts (31 characters, no []:*?/\\, unique)", async () => {
    expect(sheetNames(["Revenue: by month / region [EUR]", "a".repeat(40), "A".repeat(40), "", "Sales", "sales"])).toEqual([
      "Revenue  by month   region  EUR",
      "a".repeat(31),
      `${"A".repeat(27)} (2)`,
      "Sheet",
      "Sales",
      "sales (2)",
    ]);
    const sheets = await open(
      await xlsx([
        { name: "One", columns: [{ name: "a", type: "INTEGER" }], rows: [{ a: 1 }] },
        { name: "Two", columns: [{ name: "b", type: "STRING" }], rows: [] },
      ]),
    );
    expect(sheets.map((s) => s.sheet)).toEqual(["One", "Two"]);
    expect(sheets[1].data).toEqual([["b"]]);
  });
});
