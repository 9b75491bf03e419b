// PDF pages of a saved report, the footer in the theme's own font file, and a right-to-left
// footer (docs/delivery.md, "PDF pages"), read back with pdfjs-dist from a running `npm start`:
// a customer's saved report of 140 rows captured through the API (`report_id`) is printed on
// paper as a dashboard is; its pages are drawn as PNGs into test-results/ to be looked at.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminClient, pushDashboard } from "../../scripts/lib/admin-client.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";
import { pagePng, pagesWith, type PdfRead, readPdf } from "./pdf-reader";
import { capturedFile, devApi } from "./service-api";
import { ttfToWoff2 } from "./woff2";

const root = join(import.meta.dirname, "..", "..");
const results = join(root, "test-results");
let server: Awaited<ReturnType<typeof startLocalServer>>;
let api: ReturnType<typeof devApi>;
let reportId: string;

const ROWS = 140;
const id = (i: number) => `rep-${String(i).padStart(3, "0")}`;
const item = (i: number) => `item ${String(i).padStart(3, "0")}`;
/** A theme whose font no machine has: Liberation Sans (pdfjs-dist's own file) as "Paper Face". */
const FONT_THEME = "Paper brand";
const FONT_IN_PDF = /^[A-Z]{6}\+LiberationSans/;

const dashboard = {
  title: "Paper figures",
  panels: [
    { id: "kpi", type: "kpi", title: "Orders", schema_id: 1, sql: "SELECT 48210 AS value", layout: { x: 0, y: 0, w: 6, h: 2 } },
    { id: "note", type: "text", title: "Note", text: "Known text.", layout: { x: 6, y: 0, w: 6, h: 2 } },
    {
      id: "rows",
      type: "table",
      title: "Rows",
      schema_id: 1,
      sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) SELECT printf('d-%03d', i) AS code, i * 11 AS amount FROM n",
      layout: { x: 0, y: 2, w: 8, h: 6 },
    },
    {
      id: "side",
      type: "bar",
      title: "Side chart",
      schema_id: 1,
      sql: "SELECT 'Left' AS c, 3 AS v UNION ALL SELECT 'Right', 5",
      x_column: "c",
      y_columns: ["v"],
      layout: { x: 8, y: 2, w: 4, h: 4 },
    },
  ],
};

beforeAll(async () => {
  server = await startLocalServer({ port: await freePort(), args: ["--var", "DELIVERY_LIMIT_PER_MINUTE:1000"] });
  api = devApi(server.base, server.vars.DEV_API_TOKEN);
  const pushed = await pushDashboard(
    adminClient(server.base, server.vars.ADMIN_TOKEN),
    { embed_id: "paper-figures", name: "paper-figures", definition: dashboard },
    { tags: ["production"] },
  );
  expect(pushed.success, JSON.stringify(pushed)).toBe(1);
  // A blueprint of 140 rows for the demo customer, and a report of them saved as its user saves one.
  const blueprint = await api("/api/create_blueprint/", {
    customer_id: "acme-berlin",
    blueprint_name: "Paper rows",
    tables: [
      {
        table_name: "paper_rows",
        schema_id: 1,
        query: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS}) SELECT printf('rep-%03d', i) AS row_id, printf('item %03d', i) AS label, i * 3 AS amount FROM n`,
        columns: [
          { name: "row_id", type: "STRING", display_name: "Row" },
          { name: "label", type: "STRING", display_name: "Item" },
          { name: "amount", type: "INTEGER", display_name: "Amount" },
        ],
      },
    ],
  });
  expect(blueprint.status, JSON.stringify(blueprint.body)).toBe(200);
  const got = await api("/api/get_blueprint/", { blueprint_id: blueprint.body.blueprint_id });
  const minted = await api("/api/generate_embed_token/", { provided_id: "acme-berlin", blueprint_id: blueprint.body.blueprint_id });
  const saved = await fetch(`${server.base}/report-builder/${got.body.blueprint.embed_id}/reports`, {
    method: "POST",
    headers: { Authorization: `Bearer ${minted.body.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      name: "Paper rows report",
      query: { dataset: "paper_rows", columns: ["row_id", "label", "amount"], sort: [{ column: "row_id" }] },
      chart: { type: "bar", x: "row_id", y: ["amount"] },
    }),
  });
  expect(saved.status).toBe(200);
  reportId = ((await saved.json()) as { report: { id: string } }).report.id;
  const font = ttfToWoff2(readFileSync(join(root, "node_modules", "pdfjs-dist", "standard_fonts", "LiberationSans-Regular.ttf")));
  const theme = await api("/api/create_theme/", {
    name: FONT_THEME,
    theme: {
      mode: "light",
      font_family: '"Paper Face", sans-serif',
      fonts: [{ family: "Paper Face", weight: 400, style: "normal", woff2_base64: font.toString("base64") }],
      logo_base64: readFileSync(join(root, "examples", "themes", "acme-logo.png")).toString("base64"),
    },
  });
  expect(theme.status, JSON.stringify(theme.body)).toBe(200);
  mkdirSync(results, { recursive: true });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

const pdfOf = async (request: Record<string, unknown>) =>
  readPdf(await capturedFile(server.base, server.vars.DEV_API_TOKEN, { provided_id: "acme-berlin", export_type: "pdf", ...request }));
const sizes = (read: PdfRead) => read.pages.map((page) => page.size);

/** Draws every page into test-results/<name>-<n>.png. */
async function drawPages(read: PdfRead, name: string): Promise<void> {
  for (let n = 1; n <= read.pages.length; n++) writeFileSync(join(results, `${name}-${n}.png`), await pagePng(read, n, 1.5));
}

describe("a saved report's PDF on paper", () => {
  let read: PdfRead;
  beforeAll(async () => {
    read = await pdfOf({ report_id: reportId, pdf: { page_size: "A4" }, locale: "de-DE", timezone: "Europe/Berlin", theme: FONT_THEME });
    await drawPages(read, "pdf-saved-report-a4");
  }, 90_000);

  it("is printed on A4 pages, exactly, over more than two pages", () => {
    expect(read.pages.length).toBeGreaterThan(2);
    expect(new Set(sizes(read).map(String))).toEqual(new Set(["595,842"]));
  });

  it("prints all its rows, each row's cells on one page, and every page with rows has the header row", () => {
    const rowPages = new Set<number>();
    for (let i = 1; i <= ROWS; i++) {
      const pages = pagesWith(read, id(i));
      // The chart's axis may name a row too: the table's cell is the one with its label beside it.
      const withLabel = pages.filter((page) => pagesWith(read, item(i)).includes(page));
      expect(withLabel, id(i)).toHaveLength(1);
      expect(pagesWith(read, new Intl.NumberFormat("de-DE").format(i * 3)), id(i)).toContain(withLabel[0]);
      rowPages.add(withLabel[0]);
    }
    expect(rowPages.size).toBeGreaterThan(2);
    for (const page of rowPages)
      for (const header of ["Row", "Item"]) expect(pagesWith(read, header), `${header} on ${page}`).toContain(page);
  });

  it("page 1 is headed by the report's name and the customer; every page is footed by the name, the time and page N of M", () => {
    const first = read.pages[0];
    const top = Math.max(...first.texts.map((t) => t.y));
    expect(first.texts.find((t) => t.text === "Paper rows report" && t.y === top)).toBeDefined();
    expect(first.joined).toContain("Acme Berlin");
    const total = read.pages.length;
    read.pages.forEach((page, i) => {
      expect(page.joined, `page ${i + 1}`).toContain(`Seite ${i + 1} von ${total}`);
      expect(page.joined).toMatch(/Erstellt am \d{1,2}\. \S+ \d{4}, \d{2}:\d{2} (MEZ|MESZ)/);
      // The footer stands in the bottom margin (12 mm = 34 pt), under everything else of the page.
      const footer = page.texts.filter((t) => t.y < 34);
      expect(footer.map((t) => t.text)).toContain("Paper rows report");
    });
  });

  it("takes the page size of each request (Letter landscape, Legal)", async () => {
    expect(
      new Set(sizes(await pdfOf({ report_id: reportId, pdf: { page_size: "Letter", orientation: "landscape" } })).map(String)),
    ).toEqual(new Set(["792,612"]));
    expect(new Set(sizes(await pdfOf({ report_id: reportId, pdf: { page_size: "Legal" } })).map(String))).toEqual(new Set(["612,1008"]));
  }, 120_000);

  it("without a page size it is today's PDF: one page size from the width, no footer", async () => {
    const today = await pdfOf({ report_id: reportId, width: 1280 });
    expect(today.pages[0].size[0]).toBeCloseTo(960, 0);
    expect(today.pages[0].size[1]).toBeCloseTo(1357.5, 0);
    expect(today.pages.every((page) => !/Page \d+ of/.test(page.joined))).toBe(true);
  }, 60_000);

  it("an unknown page size is refused (400) on a report_id request; a known one is taken", async () => {
    const body = { provided_id: "acme-berlin", report_id: reportId, export_type: "pdf" };
    const refused = await api("/api/dashboard/screenshot", { ...body, pdf: { page_size: "B5" } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.error)).toContain("page_size");
    expect((await api("/api/dashboard/screenshot", { ...body, pdf: { page_size: "A3" } })).status).toBe(200);
  });
});

describe("the footer and the heading in the theme's own font file", () => {
  /** The fonts of the runs that stand in the bottom margin of each page (the footer). */
  const footerFonts = (read: PdfRead) => new Set(read.pages.flatMap((page) => page.texts.filter((t) => t.y < 34).map((t) => t.font)));

  it("a theme's font file draws every footer and the heading (its control in the built-in theme draws neither in it)", async () => {
    for (const target of [{ dashboard_embed_id: "paper-figures" }, { report_id: reportId }]) {
      const themed = await pdfOf({ ...target, pdf: { page_size: "A4" }, theme: FONT_THEME });
      const fonts = footerFonts(themed);
      expect(fonts.size, JSON.stringify([...fonts])).toBe(1);
      expect([...fonts][0]).toMatch(FONT_IN_PDF);
      const title = themed.pages[0].texts.find((t) => t.text === "Paper figures" || t.text === "Paper rows report");
      expect(title?.font).toMatch(FONT_IN_PDF);
      const control = await pdfOf({ ...target, pdf: { page_size: "A4" } });
      expect(footerFonts(control).size).toBeGreaterThan(0);
      for (const font of footerFonts(control)) expect(font).not.toMatch(FONT_IN_PDF);
    }
  }, 240_000);
});

describe("a right-to-left footer (Letter, ar-EG)", () => {
  let read: PdfRead;
  beforeAll(async () => {
    read = await pdfOf({ dashboard_embed_id: "paper-figures", pdf: { page_size: "Letter" }, locale: "ar-EG", timezone: "Africa/Cairo" });
    await drawPages(read, "pdf-letter-ar");
  }, 90_000);

  it("a chart beside a table stays whole on the table's first page, on the left of a right-to-left page", () => {
    const [first] = pagesWith(read, "d-001");
    expect(pagesWith(read, "Side chart")).toEqual([first]);
    for (const label of ["Left", "Right"]) expect(pagesWith(read, label), label).toEqual([first]);
    const page = read.pages[first - 1];
    const at = (text: string) => page.texts.find((t) => t.text === text)!.x;
    expect(at("Left")).toBeLessThan(at("d-001"));
  });

  it("is mirrored: the title stands right, the page number left, in Arabic words and digits", () => {
    expect(new Set(sizes(read).map(String))).toEqual(new Set(["612,792"]));
    const arabic = new Intl.NumberFormat("ar-EG");
    read.pages.forEach((page, i) => {
      // Chromium writes shaped Arabic glyph by glyph and splits a ligature (fi): each side of the footer is read as its runs.
      const footer = page.texts.filter((t) => t.y < 34).sort((a, b) => a.x - b.x);
      const right = footer.filter((t) => t.x > 612 - 160).map((t) => t.text);
      const left = footer.filter((t) => t.x < 160).map((t) => t.text);
      expect(right.join(""), `page ${i + 1}`).toBe("Paperfigures");
      expect(left, `page ${i + 1}`).toContain(arabic.format(i + 1));
      expect(left, `page ${i + 1}`).toContain(arabic.format(read.pages.length));
      expect(
        left.some((text) => /[\u0600-\u06ff\ufb50-\ufeff]/.test(text) && !/\d/u.test(text)),
        `page ${i + 1}: Arabic words`,
      ).toBe(true);
    });
  });
});
