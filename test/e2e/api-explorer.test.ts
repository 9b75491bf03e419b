// The API explorer at /docs/explorer/ (Swagger UI from the Worker's static assets), opened
// in a real Chromium against `npm start`: it lists the operations from /openapi.json, loads
// nothing from elsewhere, and "Try it out" with the DEV_API_TOKEN answers a real call.
// On the same server: a vendor's typed client (examples/typed-client/), its types generated
// from the live /openapi.json with openapi-typescript, type-checked and run; and the document
// `npm run lint` lints (scripts/openapi-document.mjs) is the one the server serves.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { readDevVars } from "../../scripts/lib/dev-vars.mjs";
import { freePort, startLocalServer, type LocalServer } from "../../scripts/lib/local-server.mjs";
import { openApiDocument } from "../../scripts/openapi-document.mjs";

const root = join(import.meta.dirname, "..", "..");
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let server: LocalServer;
let browser: Browser;

beforeAll(async () => {
  server = await startLocalServer({ port });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the API explorer", () => {
  it("lists every operation, loads nothing from elsewhere, and tries a call with your token", async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith("data:")) elsewhere.push(request.url());
    });
    await page.goto(`${base}/docs/explorer/`, { waitUntil: "networkidle0" });
    await page.waitForSelector(".opblock", { timeout: 30_000 });
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, object> };
    const operationCount = Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
    expect(await page.$$eval(".opblock", (blocks) => blocks.length)).toBe(operationCount);
    expect(elsewhere).toEqual([]);

    // Authorize with the token npm start printed, then "Try it out" on get_customer.
    const { DEV_API_TOKEN } = readDevVars(join(root, ".dev.vars"));
    await page.evaluate((token) => (globalThis as any).ui.preauthorizeApiKey("ApiToken", token), DEV_API_TOKEN);
    const id = await page.$$eval(
      ".opblock",
      (blocks: any[]) => blocks.find((block) => block.textContent?.includes("/api/get_customer/"))?.id,
    );
    expect(id).toBeTruthy();
    await page.click(`#${id} .opblock-summary`);
    await page.waitForSelector(`#${id} textarea.body-param__text`);
    await page.$eval(`#${id} textarea.body-param__text`, (textarea: any) => {
      // React listens for input events; set the value the way a keyboard would.
      Object.getOwnPropertyDescriptor((globalThis as any).HTMLTextAreaElement.prototype, "value")!.set!.call(
        textarea,
        '{"provided_id":"acme-berlin"}',
      );
      textarea.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await page.click(`#${id} .execute`);
    await page.waitForSelector(`#${id} .live-responses-table tbody .response-col_status`);
    expect(
      (
        await page.$eval(`#${id} .live-responses-table tbody .response-col_status`, (cell: any) => cell.textContent as string | null)
      )?.trim(),
    ).toBe("200");
    const body = JSON.parse(
      await page.$eval(`#${id} .live-responses-table .microlight`, (code: any) => (code.textContent ?? "") as string),
    );
    expect(body).toMatchObject({ success: 1, customer: { provided_id: "acme-berlin" } });
  });
});

describe("a typed client generated from /openapi.json (openapi-typescript, openapi-fetch)", () => {
  it("type-checks against the live document, refuses what the API refuses, and runs create/get/delete customer and create_blueprint", async () => {
    mkdirSync(join(root, ".build"), { recursive: true });
    // Inside the checkout, so the client resolves openapi-fetch from its node_modules.
    const dir = mkdtempSync(join(root, ".build", "typed-client-"));
    try {
      writeFileSync(join(dir, "openapi.d.ts"), astToString(await openapiTS(new URL(`${base}/openapi.json`))));
      copyFileSync(join(root, "examples", "typed-client", "client.ts"), join(dir, "client.ts"));
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "ESNext",
            moduleResolution: "Bundler",
            lib: ["ES2022", "DOM"],
            types: [],
            strict: true,
            noEmit: true,
            skipLibCheck: true,
          },
          files: ["client.ts"],
        }),
      );
      // client.ts also has calls the types must refuse (@ts-expect-error): were the generated
      // types too loose to refuse them, this check fails too.
      const check = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", dir], { encoding: "utf8" });
      expect(`${check.stdout}${check.stderr}`).toBe("");
      expect(check.status).toBe(0);

      const { DEV_API_TOKEN, ADMIN_TOKEN } = readDevVars(join(root, ".dev.vars"));
      const schemas = (await (await fetch(`${base}/admin/schemas/`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
        schemas: { id: number; name: string }[];
      };
      const sales = schemas.schemas.find((schema) => schema.name === "sales");
      expect(sales, "the demo schema").toBeTruthy();
      const client = await import(join(dir, "client.ts"));
      const providedId = `typed-client-${Date.now()}`;
      expect(await client.customerRoundTrip(client.dashboardApi(base, DEV_API_TOKEN), providedId, sales!.id)).toEqual({
        created: providedId,
        fetched: "Typed client",
        blueprintId: expect.any(Number),
        deleted: 1,
        afterDelete: "customer_not_found",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is generated from the document `npm run lint` lints (scripts/openapi-document.mjs, no server)", async () => {
    const served = await (await fetch(`${base}/openapi.json`)).json();
    expect(await openApiDocument(base)).toEqual(served);
  });
});
