// Dashboards as code against the real `npm start`: the admin CLI's validate, preview, pull and
// diff (scripts/admin.mjs, as `npm run admin -- dashboards …` runs it), and the JSON Schema of
// /schemas/dashboard.json against the API on one table of invalid definitions.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";

const root = join(import.meta.dirname, "..", "..");
const examples = ["examples/dashboards/sales.json", "examples/dashboards/monthly-report.json"];
const port = await freePort();
const shots = join(root, "test-results");
const work = mkdtempSync(join(tmpdir(), "dashboards-as-code-"));
let server: LocalServer;

/** `npm run admin -- <args>` against the test's server: exit status, stdout and stderr. */
function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [join(root, "scripts", "admin.mjs"), ...args, "--url", server.base, "--admin-token", server.vars.ADMIN_TOKEN],
    { cwd: root },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${server.vars.ADMIN_TOKEN}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const example = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8"));
function writeFile(name: string, content: unknown): string {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify(content, null, 2));
  return path;
}
/** The sales example with one panel changed. */
function salesWith(panelId: string, change: Record<string, unknown>) {
  const file = example(examples[0]);
  file.definition.panels = file.definition.panels.map((p: { id: string }) => (p.id === panelId ? { ...p, ...change } : p));
  return file;
}
const indexOf = (file: { definition: { panels: { id: string }[] } }, id: string) => file.definition.panels.findIndex((p) => p.id === id);

beforeAll(async () => {
  server = await startLocalServer({ port });
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("npm run admin -- dashboards validate", () => {
  it("passes the example files, alone and against a customer's data", async () => {
    const plain = await cli("dashboards", "validate", ...examples);
    expect(plain).toMatchObject({ status: 0, stdout: "" });
    expect(plain.stderr).toContain("examples/dashboards/sales.json: ok");
    const forCustomer = await cli("dashboards", "validate", ...examples, "--customer", "acme-berlin");
    expect(forCustomer, forCustomer.stdout).toMatchObject({ status: 0, stdout: "" });
  });

  it("fails a bad panel type, a missing column and a missing table with one exact line each, exit status 1", async () => {
    const badType = writeFile("bad-type.json", salesWith("by_month", { type: "bars" }));
    const missingColumn = writeFile("missing-column.json", salesWith("by_month", { y_columns: ["revenu"] }));
    const missingTable = writeFile(
      "missing-table.json",
      salesWith("revenue", { sql: "SELECT SUM(amount) AS value FROM orderz WHERE customer_id = {{customer.provided_id}}" }),
    );
    const file = example(examples[0]);
    const [byMonth, revenue] = [indexOf(file, "by_month"), indexOf(file, "revenue")];

    const result = await cli("dashboards", "validate", badType, missingColumn, missingTable, "--customer", "acme-berlin");
    expect(result.status).toBe(1);
    expect(result.stdout.split("\n").filter(Boolean)).toEqual([
      `${badType}: panels[${byMonth}] (by_month): type: unknown panel type 'bars'; use one of kpi, table, bar, line, area, pie, text`,
      `${missingColumn}: panels[${byMonth}] (by_month): y_columns[0]: column 'revenu' is not in the query's result (month, revenue)`,
      `${missingTable}: panels[${revenue}] (revenue): sql: the query failed: no such table: orderz`,
    ]);
    // Without a customer only the schema is checked: the other two files are well-formed.
    const schemaOnly = await cli("dashboards", "validate", missingColumn, missingTable);
    expect(schemaOnly).toMatchObject({ status: 0, stdout: "" });
  });

  it("names a file that is not JSON, and an unknown customer", async () => {
    const broken = join(work, "broken.json");
    writeFileSync(broken, "{ not json");
    const result = await cli("dashboards", "validate", broken);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON \\(`));
    const nobody = await cli("dashboards", "validate", examples[0], "--customer", "nobody-here");
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain("--customer: Customer 'nobody-here' does not exist.");
  });
});

describe("npm run admin -- dashboards preview", () => {
  it("prints a signed link that renders the unsaved file for the customer, and creates no version", async () => {
    const file = example(examples[0]);
    file.embed_id = "sales-overview";
    file.definition.title = "Unsaved draft for {{customer.name}}";
    // acme-berlin reads German: the example's own German title would win over this one.
    delete file.definition.translations;
    const path = writeFile("draft.json", file);
    const before = (await admin("GET", "/admin/dashboards/")).body.dashboards;

    const result = await cli("dashboards", "preview", path, "--customer", "acme-berlin");
    expect(result.status, result.stderr).toBe(0);
    const url = result.stdout.trim();
    expect(url).toMatch(
      new RegExp(
        `^${server.base.replace("127.0.0.1", "(127\\.0\\.0\\.1|localhost)")}/preview/sales-overview\\?token=[\\w-]+\\.[\\w-]+\\.[\\w-]+$`,
      ),
    );

    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Unsaved draft for Acme Berlin</title>");
    expect(html).toContain('data-render-complete="true"');
    expect(html).not.toContain('class="message'); // every panel drew the customer's data

    // As a person sees it: Chromium at a desktop and a phone width shows the unsaved title and
    // the customer's data, nothing wider than the window (screenshots in test-results/).
    const browser = await launchBrowser();
    try {
      mkdirSync(shots, { recursive: true });
      for (const width of [1280, 360]) {
        const page = await browser.newPage();
        await page.setViewport({ width, height: 900 });
        await page.goto(url, { waitUntil: "load" });
        const seen = await page.evaluate(() => {
          const { document, innerWidth } = globalThis as any;
          return {
            title: document.querySelector("h1")?.textContent,
            kpi: document.querySelector('[data-panel-id="revenue"] .kpi-value')?.textContent,
            overflow: document.documentElement.scrollWidth - innerWidth,
          };
        });
        expect(seen.title).toBe("Unsaved draft for Acme Berlin");
        expect(seen.kpi).toMatch(/\d/);
        expect(seen.overflow).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(shots, `preview-${width}.png`), fullPage: true });
        await page.close();
      }
    } finally {
      await browser.close();
    }

    expect((await admin("GET", "/admin/dashboards/")).body.dashboards).toEqual(before);
    // A file the API refuses gets the line validate prints, and no link.
    const badType = writeFile("preview-bad-type.json", salesWith("by_month", { type: "bars" }));
    const refused = await cli("dashboards", "preview", badType, "--customer", "acme-berlin");
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe(
      `${badType}: panels[${indexOf(file, "by_month")}] (by_month): type: unknown panel type 'bars'; use one of kpi, table, bar, line, area, pie, text\n`,
    );
    const live = await fetch(`${server.base}/embed/sales-overview?customer_token=${(await customer("acme-berlin")).token}`);
    expect(await live.text()).not.toContain("Unsaved draft");
  });
});

async function customer(providedId: string) {
  const response = await fetch(`${server.base}/api/get_customer/`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ provided_id: providedId }),
  });
  return ((await response.json()) as any).customer;
}

describe("npm run admin -- dashboards pull", () => {
  it("round-trips with push: pull → push → pull gives the identical file", async () => {
    const first = join(work, "pulled-1.json");
    const second = join(work, "pulled-2.json");
    expect((await cli("dashboards", "pull", "monthly-report", "--tag", "production", "--out", first)).status).toBe(0);
    const pushed = await cli("dashboards", "push", first);
    expect(pushed.status, pushed.stdout).toBe(0);
    const version = JSON.parse(pushed.stdout).version.version_number;
    expect((await cli("dashboards", "pull", "monthly-report", "--version", String(version), "--out", second)).status).toBe(0);
    expect(readFileSync(second, "utf8")).toBe(readFileSync(first, "utf8"));
    // Without --out the file goes to stdout, newest version by default.
    expect((await cli("dashboards", "pull", "monthly-report")).stdout).toBe(readFileSync(first, "utf8"));
    const pulled = JSON.parse(readFileSync(first, "utf8"));
    expect(pulled).toMatchObject({
      $schema: `${server.base}/schemas/dashboard.json`,
      embed_id: "monthly-report",
      name: example(examples[1]).name,
    });
  });

  it("fails with the API's reason for a version that does not exist", async () => {
    const result = await cli("dashboards", "pull", "monthly-report", "--version", "999");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("dashboard_version_not_found");
  });
});

describe("npm run admin -- dashboards diff", () => {
  it("names the panels added, removed and changed between two versions, one a line", async () => {
    const file = example(examples[0]);
    file.embed_id = "diffed";
    const v1 = JSON.parse((await cli("dashboards", "push", writeFile("diff-1.json", file))).stdout).version.version_number;
    const removed = file.definition.panels.at(-1).id;
    // A translation naming the removed panel would be refused at push (as it should): none here.
    delete file.definition.translations;
    file.definition.panels = file.definition.panels
      .slice(0, -1)
      .map((p: { id: string; title: string }) => (p.id === "revenue" ? { ...p, title: "Turnover" } : p));
    file.definition.panels.push({ id: "notes", type: "text", text: "New", layout: { x: 0, y: 40, w: 12, h: 1 } });
    const v2 = JSON.parse((await cli("dashboards", "push", writeFile("diff-2.json", file))).stdout).version.version_number;

    const result = await cli("dashboards", "diff", "diffed", String(v1), String(v2));
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`~ revenue\n- ${removed}\n+ notes\n`);
    expect((await cli("dashboards", "diff", "diffed", String(v2), String(v2))).stdout).toBe("");
  });
});

describe("the JSON Schema of /schemas/dashboard.json", () => {
  let validate: (file: unknown) => boolean;
  let schemaId: number;

  beforeAll(async () => {
    const schema = (await (await fetch(`${server.base}/schemas/dashboard.json`)).json()) as Record<string, unknown>;
    validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema) as (file: unknown) => boolean;
    schemaId = example(examples[0]).definition.panels.find((p: { schema_id?: number }) => p.schema_id).schema_id;
    await admin("POST", "/admin/dashboards/", { embed_id: "schema-table", name: "Schema table" });
  });

  const kpi = (change: Record<string, unknown> = {}) => ({
    id: "k",
    type: "kpi",
    title: "K",
    schema_id: schemaId,
    sql: "SELECT 1 AS value",
    layout: { x: 0, y: 0, w: 4, h: 2 },
    ...change,
  });
  const chart = (change: Record<string, unknown>) => kpi({ type: "bar", x_column: "a", y_columns: ["b"], ...change });
  const invalid: [string, () => unknown][] = [
    ["no panels", () => ({ panels: [] })],
    ["panels not a list", () => ({ panels: {} })],
    ["an unknown panel type", () => ({ panels: [kpi({ type: "gauge" })] })],
    ["a data panel without sql", () => ({ panels: [kpi({ sql: undefined })] })],
    ["a data panel with blank sql", () => ({ panels: [kpi({ sql: "  " })] })],
    ["a data panel without schema_id", () => ({ panels: [kpi({ schema_id: undefined })] })],
    ["a schema_id that is not a positive integer", () => ({ panels: [kpi({ schema_id: 0 })] })],
    ["a bar without x_column", () => ({ panels: [chart({ x_column: undefined })] })],
    ["a line without y_columns", () => ({ panels: [chart({ type: "line", y_columns: undefined })] })],
    ["empty y_columns", () => ({ panels: [chart({ y_columns: [] })] })],
    ["a pie without value_column", () => ({ panels: [kpi({ type: "pie", label_column: "a" })] })],
    ["a text panel without text", () => ({ panels: [{ id: "t", type: "text", layout: { x: 0, y: 0, w: 4, h: 1 } }] })],
    ["a layout wider than the grid (x + w > 12)", () => ({ panels: [kpi({ layout: { x: 8, y: 0, w: 6, h: 2 } })] })],
    ["a negative x", () => ({ panels: [kpi({ layout: { x: -1, y: 0, w: 6, h: 2 } })] })],
    ["a fractional h", () => ({ panels: [kpi({ layout: { x: 0, y: 0, w: 6, h: 1.5 } })] })],
    ["a layout without y", () => ({ panels: [kpi({ layout: { x: 0, w: 6, h: 2 } })] })],
    ["a panel id with a space", () => ({ panels: [kpi({ id: "my panel" })] })],
    ["a title over 200 characters", () => ({ title: "x".repeat(201), panels: [kpi()] })],
    ["a variable name starting with a digit", () => ({ variables: [{ name: "1st" }], panels: [kpi()] })],
    ["a select control without options", () => ({ variables: [{ name: "v", control: { type: "select" } }], panels: [kpi()] })],
    ["an unknown control type", () => ({ variables: [{ name: "v", control: { type: "slider" } }], panels: [kpi()] })],
    ["a format style that does not exist", () => ({ panels: [kpi({ format: { style: "roman" } })] })],
    ["a cache_ttl_seconds over a day", () => ({ cache_ttl_seconds: 86_401, panels: [kpi()] })],
    ["a DELETE statement", () => ({ panels: [kpi({ sql: "DELETE FROM orders" })] })],
    ["a PRAGMA", () => ({ panels: [kpi({ sql: "PRAGMA table_info(orders)" })] })],
    ["an unknown placeholder in sql", () => ({ panels: [kpi({ sql: "SELECT {{env.SECRET}} AS value" })] })],
    [
      "an unknown placeholder in a text panel",
      () => ({ panels: [{ id: "t", type: "text", text: "Hi {{customer.email}}", layout: { x: 0, y: 0, w: 4, h: 1 } }] }),
    ],
  ];
  const valid: [string, () => unknown][] = [
    ["the smallest data panel", () => ({ panels: [kpi()] })],
    [
      "lowercase sql after comments, with every kind of placeholder",
      () => ({
        variables: [{ name: "since", default: "2026-01-01" }],
        panels: [
          kpi({
            sql: "-- totals\n/* since */ select {{ customer.provided_id }}, {{customer.name}}, {{customer.properties.plan.tier}}, {{variables.since}} AS value",
          }),
        ],
      }),
    ],
    [
      "WITH and VALUES statements",
      () => ({
        panels: [
          kpi({ sql: "WITH t AS (SELECT 1 AS value) SELECT * FROM t" }),
          kpi({ id: "v", sql: "VALUES (1)", layout: { x: 4, y: 0, w: 8, h: 2 } }),
        ],
      }),
    ],
    [
      "a panel at the grid's right edge, with extra styling fields",
      () => ({ panels: [kpi({ layout: { x: 8, y: 0, w: 4, h: 2 }, color: "teal", format: { style: "percent", color: "red" } })] }),
    ],
    [
      "a text panel whose text has no placeholder",
      () => ({ panels: [{ id: "t", type: "text", text: "{{ not a placeholder", layout: { x: 0, y: 0, w: 12, h: 1 } }] }),
    ],
  ];

  async function apiAccepts(definition: unknown): Promise<boolean> {
    const res = await admin("POST", "/admin/dashboard_versions/", { embed_id: "schema-table", definition, draft: true });
    // A shape the schema describes (400), or SQL that is not one read statement (422).
    if (res.status !== 200) expect(["validation_error", "query_not_read_only"]).toContain(res.body.error.code);
    return res.status === 200;
  }
  const fileOf = (definition: unknown) => ({ embed_id: "schema-table", name: "Schema table", definition });

  it("accepts the example files", () => {
    for (const path of examples) expect(validate(example(path)), path).toBe(true);
  });

  it.each(invalid)("rejects %s, as the API does", async (_name, definition) => {
    expect(validate(fileOf(definition()))).toBe(false);
    expect(await apiAccepts(definition())).toBe(false);
  });

  it.each(valid)("accepts %s, as the API does", async (_name, definition) => {
    expect(validate(fileOf(definition()))).toBe(true);
    expect(await apiAccepts(definition())).toBe(true);
  });

  it("rejects a file without embed_id or name, or with an invalid embed_id (the push would fail)", () => {
    const { embed_id: _id, ...noId } = fileOf({ panels: [kpi()] });
    const { name: _name, ...noName } = fileOf({ panels: [kpi()] });
    expect(validate(noId)).toBe(false);
    expect(validate(noName)).toBe(false);
    expect(validate({ ...fileOf({ panels: [kpi()] }), embed_id: "not ok!" })).toBe(false);
    expect(validate({ ...fileOf({ panels: [kpi()] }), $schema: `${server.base}/schemas/dashboard.json` })).toBe(true);
  });
});
