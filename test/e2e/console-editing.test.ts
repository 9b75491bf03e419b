// The vendor's console (docs/console.md) in a real Chromium against the real `npm start`, the
// editing side: the JSON tab, the Variables form, "On click", dragging panels with the mouse,
// Compare, Publish and Revert, Embed code, a file pushed from the CLI, and axe-core on every
// screen (WCAG 2.0/2.1/2.2 A and AA, docs/accessibility.md), each screen photographed.
// Driven by roles and accessible names only, never class names.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, ElementHandle, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { adminClient } from "../../scripts/lib/admin-client.mjs";
import type { startLocalServer } from "../../scripts/lib/local-server.mjs";
import { axeViolations, describeViolations } from "./axe";
import { consolePage, openConsole, overlaps } from "./console-page";
import type { devApi } from "./service-api";

declare const document: any;

const root = join(import.meta.dirname, "..", "..");
// Beside the other console test's screenshots, in a folder of their own (some screens share a name).
const screenshots = join(root, "test-results", "console", "editing");
let server: Awaited<ReturnType<typeof startLocalServer>>;
let browser: Browser;
let page: Page;
let request: ReturnType<typeof adminClient>;
let api: ReturnType<typeof devApi>;
const measured: Record<string, unknown> = {};
const versions: Record<string, number> = {};

const { byRole, waitForPreview, embedKpi, shoot, setField, chooseCustomer } = consolePage(
  () => page,
  () => ({ browser, api, screenshots }),
);

/** axe-core finds nothing on the screen as it is, at each width. */
async function clean(what: string, widths = [1280]): Promise<void> {
  for (const width of widths) {
    await page.setViewport({ width, height: 900 });
    const violations = await axeViolations(page);
    expect(violations, `${what} at ${width} px:\n${describeViolations(violations)}`).toEqual([]);
  }
  await page.setViewport({ width: 1280, height: 900 });
}

/** What the admin CLI prints (`npm run admin -- …`) against this server. */
function cli(...args: string[]): { stdout: string; stderr: string } {
  const run = spawnSync(
    process.execPath,
    [join(root, "scripts", "admin.mjs"), ...args, "--url", server.base, "--admin-token", server.vars.ADMIN_TOKEN],
    { cwd: root, encoding: "utf8" },
  );
  expect(run.status, run.stderr).toBe(0);
  return { stdout: run.stdout, stderr: run.stderr };
}

const stored = async (version?: number) =>
  (await request("GET", `/admin/dashboard_versions/?embed_id=sales-overview${version === undefined ? "" : `&version_number=${version}`}`))
    .version;

/** The text beside a field: the problem the API's validation named by its path. */
const beside = (control: ElementHandle) =>
  control.evaluate((e: any) => document.getElementById(e.getAttribute("aria-describedby")).textContent);

/** Saves a draft with the button; resolves with its version number once the console says it saved that one. */
async function saveDraft(): Promise<number> {
  const next = (await stored()).version_number + 1;
  const save = await byRole("button", "Save draft");
  await page.waitForFunction((b: any) => !b.disabled, {}, save);
  await save.click();
  // The number itself: an earlier save's message must not pass for this one.
  await page.waitForFunction((n: number) => document.body.innerText.includes(`Saved draft version ${n}.`), {}, next);
  return next;
}

/** The box of the panel named `name` in the layout, scrolled into view first (the mouse reaches only what is shown). */
async function panelBox(name: string) {
  const panel = await byRole("group", name);
  await panel.evaluate((e: any) => e.scrollIntoView({ block: "center" }));
  const box = await panel.boundingBox();
  if (!box) throw new Error(`${name} is not shown`);
  return box;
}

/** Drags from a point by (dx, dy) pixels with the mouse, in steps. */
async function drag(from: { x: number; y: number }, dx: number, dy: number): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + dx, from.y + dy, { steps: 8 });
  await page.mouse.up();
}

beforeAll(async () => {
  ({ server, request, api, browser, page } = await openConsole(screenshots));
}, 240_000);

afterAll(async () => {
  console.log(`console editing measurements: ${JSON.stringify(measured)}`);
  await browser?.close();
  await server?.stop();
});

describe("editing in the console, every screen checked by axe", () => {
  it("signs in (sign-in form clean, with its refusal too) and lists 200 dashboards (table clean)", async () => {
    await page.goto(`${server.base}/console/`);
    await byRole("textbox", "Admin token");
    await clean("the sign-in form", [360, 1280, 1440]);
    await shoot("sign-in");
    await (await byRole("textbox", "Admin token")).type("not-the-admin-token");
    await (await byRole("button", "Sign in")).click();
    await page.waitForFunction(() => document.querySelector("[role=alert]")?.textContent.includes("not the admin token"));
    await clean("the sign-in form with its refusal", [360, 1280]);
    const token = await byRole("textbox", "Admin token");
    await token.evaluate((e: any) => (e.value = ""));
    await token.type(server.vars.ADMIN_TOKEN);
    await Promise.all([page.waitForNavigation(), (await byRole("button", "Sign in")).click()]);
    // 200 dashboards (the demo's and more), then the time from opening the console to the whole list.
    const have = (await request("GET", "/admin/dashboards/")).dashboards.length;
    for (let n = have; n < 200; n += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, 200 - n) }, (_, i) =>
          request("POST", "/admin/dashboards/", { embed_id: `listed-${n + i}`, name: `Listed ${n + i}` }),
        ),
      );
    const started = Date.now();
    await page.goto(`${server.base}/console/`);
    const table = await byRole("table", "Dashboards");
    await page.waitForFunction((t: any) => t.querySelectorAll("tbody tr").length >= 200, {}, table);
    measured.list_200_ms = Date.now() - started;
    // What the console's script itself took: the admin call and drawing the 200 rows.
    measured.list_200_script_ms = Number(await page.evaluate(() => document.getElementById("main").dataset.listMs));
    await clean("the dashboards table", [360, 1280, 1440]);
    await shoot("dashboards-200");
  }, 180_000);

  it("opens the editor (clean) and previews a customer", async () => {
    await (await byRole("searchbox", "Search dashboards")).type("sales");
    await (await byRole("link", "Sales overview")).click();
    await byRole("listbox", "Panels");
    await byRole("option", "Revenue");
    // Globex reads English: the preview shows the definition's own titles (Acme Berlin's are translated).
    await chooseCustomer("globex");
    await waitForPreview("Globex");
    versions.first = (await stored()).version_number;
    await clean("the editor with its preview");
    await shoot("editor", [1280, 1440]);
  }, 60_000);

  it("edits in the tab JSON: what parses replaces the definition (forms and preview follow); what does not is not applied", async () => {
    await (await byRole("tab", "JSON")).click();
    const json = await byRole("textbox", "Definition");
    const text: string = await json.evaluate((e: any) => e.value);
    // Control: text that is not JSON changes nothing.
    await setField("Definition", `${text.slice(0, -2)}`);
    await page.waitForFunction(() => document.body.innerText.includes("Not applied:"));
    const definition = JSON.parse(text);
    definition.panels.find((p: any) => p.id === "revenue").title = "Revenue (JSON)";
    await setField("Definition", JSON.stringify(definition, null, 2));
    await page.waitForFunction(() => !document.body.innerText.includes("Not applied:"));
    await waitForPreview("Revenue (JSON)");
    await (await byRole("tab", "Form")).click();
    await (await byRole("option", "Revenue (JSON)")).click();
    expect(await (await byRole("textbox", "Title")).evaluate((e: any) => e.value)).toBe("Revenue (JSON)");
    await clean("the editor's tab JSON, back on the form");
  }, 60_000);

  it("adds a variable in the form Variables (a bad name refused beside its field, with its path) and sets On click", async () => {
    const form = await byRole("form", "Variables");
    const count = await form.evaluate((f: any) => f.querySelectorAll("fieldset").length);
    await (await byRole("button", "Add variable")).click();
    const group = await byRole("group", `Variable ${count + 1}`);
    await setField("Name", "1 bad", group);
    const name = await byRole("textbox", "Name", group);
    await page.waitForFunction((e: any) => document.getElementById(e.getAttribute("aria-describedby")).textContent !== "", {}, name);
    expect(await beside(name)).toMatch(new RegExp(`^variables\\.${count}\\.name: `));
    expect(await (await byRole("button", "Save draft")).evaluate((e: any) => e.disabled)).toBe(true);
    // Control: a good name clears it.
    await setField("Name", "region", group);
    await page.waitForFunction((e: any) => document.getElementById(e.getAttribute("aria-describedby")).textContent === "", {}, name);
    await setField("Default", "EU", group);
    await setField("Label", "Region", group);
    await setField("Options", "EU, US", group);

    await (await byRole("option", "Revenue by month")).click();
    const click = await byRole("group", "On click");
    await (await byRole("combobox", "Action", click)).select("filter");
    const variable = await byRole("textbox", "Variable", await byRole("group", "On click"));
    await setField("Variable", "nope", await byRole("group", "On click"));
    await page.waitForFunction((e: any) => document.getElementById(e.getAttribute("aria-describedby")).textContent !== "", {}, variable);
    expect(await beside(variable)).toMatch(/^panels\.4\.on_click(\.variable)?: /);
    await clean("the editor with problems beside their fields");
    await setField("Variable", "region", await byRole("group", "On click"));
    versions.edited = await saveDraft();
    const saved = await stored(versions.edited);
    expect(saved.draft).toBe(true);
    expect(saved.definition.variables.find((v: any) => v.name === "region")).toEqual({
      name: "region",
      default: "EU",
      label: "Region",
      control: { type: "select", options: ["EU", "US"] },
    });
    const panels = saved.definition.panels;
    expect(panels.find((p: any) => p.id === "by_month").on_click).toEqual({ action: "filter", variable: "region" });
    expect(panels.find((p: any) => p.id === "revenue").title).toBe("Revenue (JSON)");
  }, 90_000);

  it("moves a panel by dragging its header and resizes one by its corner; layout is saved with no overlaps", async () => {
    const before = (await stored()).definition.panels;
    const at = (panels: any[], id: string) => panels.find((p: any) => p.id === id).layout;
    const grid = (await (await byRole("region", "Layout")).boundingBox())!;
    const column = (grid.width - 8) / 12;
    const row = 40;
    // Control: pressing on the header without moving changes nothing.
    const still = await panelBox("Revenue (JSON)");
    await drag({ x: still.x + still.width / 2, y: still.y + 6 }, 0, 0);
    expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/Revenue \(JSON\): column/);
    // Move: the header, two columns right and one row down (it lands on Orders, which is pushed down).
    const revenue = await panelBox("Revenue (JSON)");
    await drag({ x: revenue.x + revenue.width / 2, y: revenue.y + 6 }, 2 * column, row);
    await page.waitForFunction(() => document.body.innerText.includes("Revenue (JSON): column 3, row 3"));
    // Resize: the corner of "Average order", one column narrower and two rows higher.
    const average = await panelBox("Average order");
    await drag({ x: average.x + average.width - 4, y: average.y + average.height - 4 }, -column, 2 * row);
    await page.waitForFunction(() => document.body.innerText.includes("Average order: column 9, row 2, 3 wide, 4 high"));
    await clean("the editor after dragging");
    versions.dragged = await saveDraft();
    const panels = (await stored(versions.dragged)).definition.panels;
    const start = at(before, "revenue");
    expect(at(panels, "revenue")).toEqual({ ...start, x: start.x + 2, y: start.y + 1 });
    const corner = at(before, "average");
    expect(at(panels, "average")).toEqual({ ...corner, w: corner.w - 1, h: corner.h + 2 });
    expect(at(panels, "orders").y).toBeGreaterThan(at(before, "orders").y);
    for (const a of panels) for (const b of panels) if (a !== b) expect(overlaps(a.layout, b.layout), `${a.id} on ${b.id}`).toBe(false);
    await shoot("layout-dragged", [1280, 1440]);
  }, 90_000);

  it("compares two versions in words, saying what `dashboards diff` reports", async () => {
    // A panel removed and one added, so that every kind of line shows.
    await (await byRole("option", "Products")).click();
    await (await byRole("button", "Delete panel")).click();
    await (await byRole("button", "Add panel")).click();
    // The deleted panel's translations went with it (a translation of a panel that is gone cannot be saved).
    const json = (await stored()).definition;
    expect(Object.keys(json.translations.de)).toContain("panels.top_products.title");
    versions.compared = await saveDraft();
    const saved = await stored(versions.compared);
    expect(saved.definition.panels.map((p: any) => p.id)).not.toContain("top_products");
    expect(Object.keys(saved.definition.translations.de).filter((k) => k.startsWith("panels.top_products."))).toEqual([]);
    await (await byRole("combobox", "From version")).select(String(versions.first));
    // The list of versions is read again after "Saved draft version n." shows: choosing the new one
    // before its option exists would silently keep the earlier "To" (seen under load).
    const to = await byRole("combobox", "To version");
    await page.waitForFunction((s: any, v: string) => [...s.options].some((o: any) => o.value === v), {}, to, String(versions.compared));
    await to.select(String(versions.compared));
    await (await byRole("button", "Compare")).click();
    const list = await byRole("list", "Comparison");
    await page.waitForFunction((l: any) => l.children.length > 0, {}, list);
    const words: string[] = await list.evaluate((l: any) => [...l.children].map((li: any) => li.textContent));
    const diff = cli("dashboards", "diff", "sales-overview", String(versions.first), String(versions.compared));
    // Each line of the CLI in words, in the same order: `~ id` changed, `- id` removed, `+ id` added, then the rest by name.
    const expected = diff.stdout.trim().split("\n");
    expect(expected).toEqual(expect.arrayContaining(["~ revenue", "~ by_month", "- top_products", expect.stringMatching(/^\+ panel_/)]));
    const panelWords = words.filter((w) => w.startsWith("Panel "));
    expect(
      panelWords.map((w) =>
        w
          .replace(/^Panel (\S+) changed: .*/s, "~ $1")
          .replace(/^Panel (\S+) \(.*\) was (removed|added)\.$/, (_, id, how) => `${how === "removed" ? "-" : "+"} ${id}`),
      ),
    ).toEqual(expected);
    expect(words.at(-1)).toBe(diff.stderr.trim());
    expect(words.find((w) => w.startsWith("Panel revenue changed:"))).toContain('title from "Revenue" to "Revenue (JSON)"');
    expect(words).toContain('Panel top_products ("Products") was removed.');
    await clean("the versions with a comparison");
    await shoot("versions-compare", [1280, 1440]);
  }, 90_000);

  it("checks all customers (Problems filled, clean), publishes after a confirmation naming the count (dialog clean), and reverts", async () => {
    const lonely = `no-mapping-${Date.now()}`;
    expect((await api("/api/create_customer/", { provided_id: lonely, name: "No Mapping Co" })).status).toBe(200);
    await (await byRole("button", "Check all customers")).click();
    await page.waitForFunction(() => /Checked \d+ customers in|The check stopped/.test(document.body.innerText), { timeout: 60_000 });
    const problems = await (await byRole("table", "Problems")).evaluate((e: any) => e.innerText);
    expect(problems).toContain(lonely);
    await clean("the check of all customers with its Problems");
    await shoot("check-all-problems", [1280, 1440]);

    const production = await embedKpi("globex", "revenue");
    expect(production.text).not.toContain("Revenue (JSON)");
    await (await byRole("button", "Publish")).click();
    const dialog = await byRole("dialog", `Publish version ${versions.compared} as production?`);
    expect(await dialog.evaluate((e: any) => e.textContent)).toMatch(/The last check of version \d+ found \d+ problems?\./);
    await clean("the publish confirmation");
    await shoot("publish-confirm", [1280, 1440], false);
    await (await byRole("button", "Publish anyway")).click();
    await page.waitForFunction((v: number) => document.body.innerText.includes(`Version ${v} is now production.`), {}, versions.compared);
    expect((await embedKpi("globex", "revenue")).text).toContain("Revenue (JSON)");

    // Revert: the first version is production again, and the embed page shows it.
    await (await byRole("button", `Revert to version ${versions.first}`)).click();
    await page.waitForFunction((v: number) => document.body.innerText.includes(`Version ${v} is now production.`), {}, versions.first);
    const history = await request("GET", "/admin/dashboard_version_history/?embed_id=sales-overview");
    const tagged = history.versions.filter((v: any) => v.tags.includes("production")).map((v: any) => v.version_number);
    expect(tagged).toEqual([versions.first]);
    const reverted = await embedKpi("globex", "revenue");
    expect(reverted.text).not.toContain("Revenue (JSON)");
    expect(reverted.text).toContain("Revenue");
  }, 150_000);

  it("shows the embed code for the previewed customer: the element and a generate_embed_token call, no secret (clean)", async () => {
    await (await byRole("button", "Embed code")).click();
    const code = await byRole("region", "Embed code");
    const text: string = await code.evaluate((e: any) => e.textContent);
    expect(text).toContain('<dashboard-embed embed-id="sales-overview"');
    expect(text).toContain(`POST ${server.base}/api/generate_embed_token/`);
    expect(text).toContain('"provided_id":"globex"');
    expect(text).toContain("Token <YOUR_API_TOKEN>");
    for (const secret of [server.vars.ADMIN_TOKEN, server.vars.DEV_API_TOKEN]) expect(text).not.toContain(secret);
    await clean("the embed code");
    await shoot("embed-code", [1280, 1440]);
    // Control: another customer previewed, another customer in the call.
    await chooseCustomer("acme-paris");
    await waitForPreview("Acme Paris");
    await (await byRole("button", "Embed code")).click();
    await page.waitForFunction((e: any) => e.textContent.includes('"provided_id":"acme-paris"'), {}, await byRole("region", "Embed code"));
  }, 60_000);

  it("shows a file pushed from the CLI after a reload (and not before)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "console-push-"));
    const file = JSON.parse(cli("dashboards", "pull", "sales-overview", "--version", String(versions.first)).stdout);
    file.definition.panels.find((p: any) => p.id === "orders").title = "Orders pushed from the CLI";
    const path = join(dir, "sales-overview.json");
    writeFileSync(path, JSON.stringify(file, null, 2));
    cli("dashboards", "push", path);
    const pushed = (await stored()).version_number;
    // Control: the open editor shows what it loaded.
    expect(await page.evaluate(() => document.body.innerText)).not.toContain("Orders pushed from the CLI");
    await page.reload();
    await byRole("option", "Orders pushed from the CLI");
    await page.waitForFunction((v: number) => document.body.innerText.includes(`Version ${v} `), {}, pushed);
  }, 60_000);
});
