// PDF pages (docs/delivery.md, "PDF pages"), read back with a real PDF reader (pdfjs-dist): a
// running `npm start` captures dashboards through the API, and each PDF's pages are measured,
// their text read and placed, and drawn as PNGs into test-results/ to be looked at. Also the
// filter line every capture carries ("What a capture shows"): in a PDF's text and in a PNG's
// pixels, with a control that hides it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminClient, pushDashboard } from "../../scripts/lib/admin-client.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";
import { pagePng, pagesWith, type PdfRead, readPdf } from "./pdf-reader";
import { darkPixels, decodePng } from "./pixels";
import { capturedFile, devApi } from "./service-api";

const results = join(import.meta.dirname, "..", "..", "test-results");
let server: Awaited<ReturnType<typeof startLocalServer>>;

const kpis = Array.from({ length: 14 }, (_, i) => ({
  id: `kpi${i + 1}`,
  type: "kpi",
  title: `KPI ${String(i + 1).padStart(2, "0")}`,
  schema_id: 1,
  sql: `SELECT ${1000 + i * 111} AS value`,
  layout: { x: (i % 4) * 3, y: Math.floor(i / 4) * 2, w: 3, h: 2 },
}));
const ROWS = 150;
const filters = [
  { name: "since", default: "2026-01-01", label: "Since", control: { type: "date" } },
  { name: "product", default: "seats", label: "Product", control: { type: "select", options: ["seats", "licences"] } },
];
/** 14 KPIs, a text panel, a chart that starts a new page, a 150-row table, a chart taller than any page. */
function paperReport(breakBefore: boolean) {
  return {
    title: "Paper report",
    variables: filters,
    panels: [
      ...kpis,
      { id: "before", type: "text", title: "", text: "Before the break", layout: { x: 0, y: 8, w: 12, h: 1 } },
      {
        id: "after",
        type: "bar",
        title: "After the break",
        ...(breakBefore ? { page_break_before: true } : {}),
        schema_id: 1,
        sql: "SELECT 'Cat A' AS c, 3 AS v UNION ALL SELECT 'Cat B', 5",
        x_column: "c",
        y_columns: ["v"],
        layout: { x: 0, y: 9, w: 12, h: 2 },
      },
      {
        id: "rows",
        type: "table",
        title: "All rows",
        schema_id: 1,
        sql: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS}) SELECT printf('row-%03d', i) AS row_id, printf('name %03d', i) AS label, i * 7 AS amount FROM n`,
        layout: { x: 0, y: 11, w: 12, h: 6 },
      },
      {
        id: "tall",
        type: "bar",
        title: "Tall chart",
        schema_id: 1,
        sql: "SELECT 'North' AS c, 3 AS v UNION ALL SELECT 'South', 5 UNION ALL SELECT 'East', 4",
        x_column: "c",
        y_columns: ["v"],
        layout: { x: 0, y: 17, w: 12, h: 20 },
      },
    ],
    translations: { de: { "variables.since.label": "Ab", "options.product.seats": "Sitzplätze" } },
  };
}
const small = (extra: Record<string, unknown> = {}) => ({
  title: "Small",
  panels: [{ id: "one", type: "kpi", title: "One", schema_id: 1, sql: "SELECT 1 AS value", layout: { x: 0, y: 0, w: 4, h: 2 } }],
  ...extra,
});
const filtered = (extra: Record<string, unknown> = {}) => ({
  title: "Filtered",
  variables: filters,
  panels: [{ id: "note", type: "text", title: "Note", text: "Filters above.", layout: { x: 0, y: 0, w: 12, h: 2 } }],
  ...extra,
});
const dashboards = {
  "paper-report": paperReport(true),
  "paper-no-break": paperReport(false),
  "paper-small": small(),
  "paper-default": small({ pdf: { page_size: "Legal" } }),
  "filters-shown": filtered(),
  "filters-hidden": filtered({ show_filters_in_captures: false }),
};

beforeAll(async () => {
  // Some thirty captures in a few minutes: past the default delivery limit of 20 a minute.
  server = await startLocalServer({ port: await freePort(), args: ["--var", "DELIVERY_LIMIT_PER_MINUTE:1000"] });
  const admin = adminClient(server.base, server.vars.ADMIN_TOKEN);
  for (const [embed_id, definition] of Object.entries(dashboards)) {
    const pushed = await pushDashboard(admin, { embed_id, name: embed_id, definition }, { tags: ["production"] });
    expect(pushed.success, JSON.stringify(pushed)).toBe(1);
  }
  mkdirSync(results, { recursive: true });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

const capture = (request: Record<string, unknown>) =>
  capturedFile(server.base, server.vars.DEV_API_TOKEN, { provided_id: "acme-berlin", export_type: "pdf", ...request });
const pdfOf = async (request: Record<string, unknown>) => readPdf(await capture(request));
const sizes = (read: PdfRead) => read.pages.map((page) => page.size);

/** Draws every page into test-results/<name>-<n>.png. */
async function drawPages(read: PdfRead, name: string): Promise<void> {
  for (let n = 1; n <= read.pages.length; n++) writeFileSync(join(results, `${name}-${n}.png`), await pagePng(read, n, 1.5));
}

describe("PDF pages", () => {
  const points = { A4: [595, 842], Letter: [612, 792], Legal: [612, 1008], A3: [842, 1191] } as const;
  for (const [size, [width, height]] of Object.entries(points)) {
    for (const orientation of ["portrait", "landscape"] as const) {
      it(`${size} ${orientation}: every page is exactly ${orientation === "portrait" ? `${width}×${height}` : `${height}×${width}`} pt`, async () => {
        const read = await pdfOf({ dashboard_embed_id: "paper-report", pdf: { page_size: size, orientation } });
        const expected = orientation === "portrait" ? [width, height] : [height, width];
        expect(read.pages.length).toBeGreaterThan(2);
        expect(new Set(sizes(read).map(String))).toEqual(new Set([String(expected)]));
        if (size === "A4" && orientation === "landscape") await drawPages(read, "pdf-a4-landscape");
      }, 60_000);
    }
  }

  it("without a page size (neither the request's nor the definition's) the PDF is today's: one page size from the width, no footer", async () => {
    const read = await pdfOf({ dashboard_embed_id: "paper-small", width: 1280 });
    expect(read.pages.length).toBe(1);
    // 1280 px wide, √2 times as high (Chromium rounds to 1/300 inch).
    expect(read.pages[0].size[0]).toBeCloseTo(960, 0);
    expect(read.pages[0].size[1]).toBeCloseTo(1357.5, 0);
    expect(read.pages[0].joined).not.toMatch(/Page 1 of/);
  }, 60_000);

  it("the definition's pdf is the default; the request's fields override it one by one", async () => {
    expect(sizes(await pdfOf({ dashboard_embed_id: "paper-default" }))).toEqual([[612, 1008]]);
    expect(sizes(await pdfOf({ dashboard_embed_id: "paper-default", pdf: { orientation: "landscape" } }))).toEqual([[1008, 612]]);
    expect(sizes(await pdfOf({ dashboard_embed_id: "paper-default", pdf: { page_size: "A4" } }))).toEqual([[595, 842]]);
  }, 90_000);

  it("an unknown page size or orientation is refused (400) before any job exists; a known one is taken", async () => {
    const api = devApi(server.base, server.vars.DEV_API_TOKEN);
    const body = { provided_id: "acme-berlin", dashboard_embed_id: "paper-small", export_type: "pdf" };
    const a5 = await api("/api/dashboard/screenshot", { ...body, pdf: { page_size: "A5" } });
    expect(a5.status).toBe(400);
    expect(a5.body.error.code).toBe("validation_error");
    expect(JSON.stringify(a5.body.error)).toContain("page_size");
    const sideways = await api("/api/dashboard/screenshot", { ...body, pdf: { page_size: "A4", orientation: "sideways" } });
    expect(sideways.status).toBe(400);
    const a4 = await api("/api/dashboard/screenshot", { ...body, pdf: { page_size: "A4", orientation: "landscape" } });
    expect(a4.status).toBe(200);
    expect(a4.body.job_id).toMatch(/^job_/);
  });

  describe("14 KPIs, a chart after a page break, a 150-row table and a tall chart on A4 (de-DE, filtered)", () => {
    let read: PdfRead;
    let bytes: Uint8Array;
    beforeAll(async () => {
      bytes = await capture({
        dashboard_embed_id: "paper-report",
        pdf: { page_size: "A4" },
        locale: "de-DE",
        timezone: "Europe/Berlin",
        variables: { since: "2026-03-01" },
      });
      read = await readPdf(bytes);
      await drawPages(read, "pdf-a4");
      writeFileSync(join(results, "pdf-a4.pdf"), bytes);
    }, 90_000);

    it("every KPI's title and value stand on one page", () => {
      kpis.forEach((kpi, i) => {
        const value = new Intl.NumberFormat("de-DE").format(1000 + i * 111);
        const titlePages = pagesWith(read, kpi.title);
        expect(titlePages, kpi.title).toHaveLength(1);
        expect(pagesWith(read, value), `${kpi.title}: ${value}`).toEqual(titlePages);
      });
    });

    it("every one of the 150 rows is printed, each row's cells on one page, and every page with rows has the header row", () => {
      const rowPages = new Set<number>();
      for (let i = 1; i <= ROWS; i++) {
        const id = `row-${String(i).padStart(3, "0")}`;
        const pages = pagesWith(read, id);
        expect(pages, id).toHaveLength(1);
        expect(pagesWith(read, `name ${String(i).padStart(3, "0")}`), id).toEqual(pages);
        expect(pagesWith(read, new Intl.NumberFormat("de-DE").format(i * 7)), id).toContain(pages[0]);
        rowPages.add(pages[0]);
      }
      expect(rowPages.size).toBeGreaterThan(2); // the table really continues over pages
      for (const page of rowPages) {
        for (const header of ["row_id", "label", "amount"]) expect(pagesWith(read, header), `${header} on page ${page}`).toContain(page);
      }
    });

    it("every page is footed by the title, the time of rendering in the view's locale and zone, and page N of M in its language", () => {
      const total = read.pages.length;
      read.pages.forEach((page, i) => {
        expect(page.joined, `page ${i + 1}`).toContain(`Seite ${i + 1} von ${total}`);
        expect(page.texts.some((t) => t.text === "Paper report")).toBe(true);
        // "Erstellt am 2. Dez. 2026, 01:34 MEZ": a German date and Berlin's zone.
        expect(page.joined).toMatch(/Erstellt am \d{1,2}\. \S+ \d{4}, \d{2}:\d{2} (MEZ|MESZ)/);
      });
    });

    it("page_break_before starts its panel on a new page (its control without it shares the page before)", async () => {
      const [before] = pagesWith(read, "Before the break");
      expect(pagesWith(read, "After the break")).toEqual([before + 1]);
      const control = await pdfOf({ dashboard_embed_id: "paper-no-break", pdf: { page_size: "A4" }, locale: "de-DE" });
      expect(pagesWith(control, "After the break")).toEqual(pagesWith(control, "Before the break"));
    }, 60_000);

    it("a chart taller than a page is scaled into one: its title and every label on one page", () => {
      const pages = pagesWith(read, "Tall chart");
      expect(pages).toHaveLength(1);
      for (const label of ["North", "South", "East"]) expect(pagesWith(read, label), label).toEqual(pages);
    });

    it("the table's band ends below its last row: no row is drawn under the band after it (the tall chart)", () => {
      const [page] = pagesWith(read, "Tall chart");
      const chartTop = Math.max(...read.pages[page - 1].texts.filter((t) => t.text === "Tall chart").map((t) => t.y));
      const rowsThere = read.pages[page - 1].texts.filter((t) => /^row-\d{3}$/.test(t.text));
      for (const row of rowsThere) expect(row.y, `${row.text} on page ${page}`).toBeGreaterThan(chartTop);
      // The last row stands on the page before the chart or above the chart's title, and is drawn: its page has the table's header.
      const [last] = pagesWith(read, `row-${ROWS}`);
      expect(pagesWith(read, "row_id")).toContain(last);
    });

    it("page 1 is headed by the title, the customer and the filter line in the view's formatting", () => {
      const first = read.pages[0];
      const top = Math.max(...first.texts.map((t) => t.y));
      const title = first.texts.find((t) => t.text === "Paper report" && t.y > 700);
      expect(title?.y).toBe(top);
      expect(first.joined).toContain("Acme Berlin");
      expect(first.joined).toMatch(/Ab:\s*01\.03\.2026/);
      expect(first.joined).toMatch(/Product:\s*Sitzplätze/);
    });

    it("is tagged (a structure tree with headings and a table), in the view's language, with its text in embedded fonts", async () => {
      expect(((await read.doc.getMarkInfo()) as unknown as Map<string, boolean>).get("Marked")).toBe(true);
      const roles = new Set<string>();
      const walk = (node: { role?: string; children?: unknown[] }) => {
        if (node.role) roles.add(node.role);
        for (const child of node.children ?? []) walk(child as never);
      };
      for (let n = 1; n <= read.pages.length; n++) walk((await (await read.doc.getPage(n)).getStructTree()) as never);
      expect(roles).toContain("H1");
      expect(roles).toContain("Table");
      expect(roles).toContain("TH");
      const raw = Buffer.from(bytes).toString("latin1");
      expect(raw).toContain("/Lang (de-DE)");
      expect(raw).toMatch(/\/BaseFont\s*\/[A-Z]{6}\+OpenSans/);
    });
  });
});

describe("the filter line of a capture", () => {
  /** Dark pixels, row by row. */
  const darkRows = (png: ReturnType<typeof decodePng>) =>
    Array.from({ length: png.height }, (_, y) => darkPixels(png, { x: 0, y, width: png.width, height: 1 }));

  it("a PNG shows the filter values under the title (its control with show_filters_in_captures: false shows none there)", async () => {
    const request = { export_type: "image", width: 1280, variables: { since: "2026-03-01", product: "licences" } };
    const shown = await capturedFile(server.base, server.vars.DEV_API_TOKEN, {
      provided_id: "acme-berlin",
      dashboard_embed_id: "filters-shown",
      ...request,
    });
    const hidden = await capturedFile(server.base, server.vars.DEV_API_TOKEN, {
      provided_id: "acme-berlin",
      dashboard_embed_id: "filters-hidden",
      ...request,
    });
    writeFileSync(join(results, "filter-line.png"), shown);
    const [withLine, without] = [decodePng(shown), decodePng(hidden)];
    // The title: the first run of rows with dark pixels, the same in both.
    const rowsWithout = darkRows(without);
    const titleTop = rowsWithout.findIndex((count) => count > 0);
    const titleEnd = rowsWithout.findIndex((count, y) => y > titleTop && count === 0);
    expect(titleTop).toBeGreaterThan(0);
    const band = { x: 0, y: titleEnd + 1, width: withLine.width, height: 26 };
    // "Since: 01/03/2026 · Product: licences" in text-coloured glyphs right under the title …
    expect(darkPixels(withLine, band)).toBeGreaterThan(80);
    // … where the control has no text at all.
    expect(darkPixels(without, band)).toBe(0);
  }, 90_000);

  it("a PDF's text holds the filter values (en-US dates, a select's value) and none when the definition hides them", async () => {
    const request = { variables: { since: "2026-03-01", product: "licences" }, locale: "en-US" };
    const shown = await pdfOf({ dashboard_embed_id: "filters-shown", ...request });
    expect(shown.pages[0].joined).toMatch(/Since:\s*03\/01\/2026/);
    expect(shown.pages[0].joined).toMatch(/Product:\s*licences/);
    const hidden = await pdfOf({ dashboard_embed_id: "filters-hidden", ...request });
    expect(hidden.pages[0].joined).toContain("Filters above.");
    expect(hidden.pages[0].joined).not.toContain("03/01/2026");
  }, 90_000);
});
