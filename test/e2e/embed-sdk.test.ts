// The host's side (docs/embedding.md section 4, packages/embed): the versioned embed script
// pinned by its SRI hash, dashboard-load once the frame's text has its final font,
// dashboard-navigate and the Back control after a drill-through, and the SDK package packed,
// installed into a fresh React app, type-checked there and run in a real Chromium.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import type { Browser, Frame, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { startEmbedHost } from "../../scripts/lib/embed-host.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";

// These callbacks run in the browser (page.evaluate); the project's types are the Workers'.
declare const document: any;
declare const window: any;
declare const getComputedStyle: any;
declare const MouseEvent: any;

const root = join(import.meta.dirname, "..", "..");
const screenshots = join(root, "test-results");
let server: Awaited<ReturnType<typeof startLocalServer>>;
let host: Awaited<ReturnType<typeof startEmbedHost>>;
let browser: Browser;
let work: string;
/** What `npm start` printed (its banner). */
let serverOutput = "";
/** What the packed package's fresh React app gave: tsc's verdicts and the bundle. */
let reactApp: { typecheck: Run; misspelled: Run; bundle: string };

interface Run {
  status: number | null;
  stdout: string;
  output: string;
}
function run(command: string, args: string[], cwd: string): Run {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
  return { status: result.status, stdout: result.stdout ?? "", output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}
/** Its standard output; a failure throws with all it said. */
function mustRun(command: string, args: string[], cwd: string): string {
  const result = run(command, args, cwd);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.output}`);
  return result.stdout;
}

/**
 * `npm pack` of packages/embed (its prepack builds dist/ from the service's sources), installed
 * with React from the npm registry into a copy of test/e2e/fixtures/react-host (a vendor's fresh
 * app), type-checked there with tsc, and bundled with esbuild.
 */
async function buildReactApp(): Promise<typeof reactApp> {
  const output = mustRun("npm", ["pack", "--json", "--pack-destination", work], join(root, "packages", "embed"));
  const packed = JSON.parse(output.slice(output.indexOf("[")));
  const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
  expect(files).toEqual(
    expect.arrayContaining(["README.md", "index.d.ts", "react.d.ts", "dist/index.js", "dist/react.js", "package.json"]),
  );
  const app = join(work, "app");
  cpSync(join(root, "test", "e2e", "fixtures", "react-host"), app, { recursive: true });
  const versions = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies;
  const registry = ["react", "react-dom", "@types/react", "@types/react-dom"].map((name) => `${name}@${versions[name]}`);
  mustRun("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(work, packed[0].filename), ...registry], app);
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const typecheck = run(process.execPath, [tsc, "-p", join(app, "tsconfig.json")], app);
  const misspelled = run(process.execPath, [tsc, "-p", join(app, "tsconfig.misspelled.json")], app);
  const bundled = await build({
    entryPoints: [join(app, "src", "main.tsx")],
    absWorkingDir: app,
    bundle: true,
    format: "esm",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    write: false,
    logLevel: "error",
  });
  return { typecheck, misspelled, bundle: bundled.outputFiles[0].text };
}

const TOKEN_URL = "/token?customer=acme-berlin&dashboard=sales-overview&locale=en-US";

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "embed-sdk-"));
  mkdirSync(screenshots, { recursive: true });
  const [started, app] = await Promise.all([
    startLocalServer({ port: await freePort(), onOutput: (text: string) => (serverOutput += text) }),
    buildReactApp(),
  ]);
  server = started;
  reactApp = app;
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Vendor app (React)</title>
<script>window.SERVICE_URL = ${JSON.stringify(server.base)}; window.TOKEN_URL = ${JSON.stringify(TOKEN_URL)};</script></head>
<body><div id="root"></div><script type="module" src="/react/app.js"></script></body></html>`;
  host = await startEmbedHost({
    apiBase: server.base,
    apiToken: server.vars.DEV_API_TOKEN,
    assets: {
      "/react/": { type: "text/html; charset=utf-8", body: page },
      "/react/app.js": { type: "text/javascript; charset=utf-8", body: reactApp.bundle },
      "/blank": {
        type: "text/html; charset=utf-8",
        body: '<!doctype html><html><head><meta charset="utf-8"></head><body><main id="app"></main></body></html>',
      },
    },
  });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The frame showing `/embed/<embedId>`, its page rendered. */
async function frameOf(page: Page, embedId: string): Promise<Frame> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const frame = page.frames().find((f) => new URL(f.url() || "about:blank", "http://x").pathname === `/embed/${embedId}`);
    if (frame) {
      try {
        await frame.waitForSelector("body[data-render-complete]", { timeout: 2000 });
        return frame;
      } catch {
        /* navigating */
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the frame never showed ${embedId}`);
}

describe("the versioned embed script", () => {
  it("/embed/v<major>.<minor>.js is pinned by the SRI hash the docs, versions.json and the bytes agree on; a wrong hash is refused", async () => {
    const versions: any = await (await fetch(`${server.base}/embed/versions.json`)).json();
    const { url, integrity } = versions.scripts[versions.latest];
    const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(integrity).toBe(`sha384-${createHash("sha384").update(bytes).digest("base64")}`);
    // The package's major.minor is the script's version.
    const sdkVersion = JSON.parse(readFileSync(join(root, "packages", "embed", "package.json"), "utf8")).version;
    expect(`v${sdkVersion.split(".").slice(0, 2).join(".")}`).toBe(versions.latest);
    // The docs pin the same bytes (a change to the element's source is a new version: src/dashboards/embed-version.ts).
    const docs = readFileSync(join(root, "docs", "embedding.md"), "utf8");
    const pinned = new RegExp(`/embed/${versions.latest.replace(".", "\\.")}\\.js" integrity="(sha384-[A-Za-z0-9+/=]+)"`).exec(docs)?.[1];
    expect(pinned, `docs/embedding.md should pin ${versions.latest} with integrity="${integrity}"`).toBe(integrity);
    // npm start's banner prints the tag to copy.
    expect(serverOutput).toContain(`src="${url.replace("127.0.0.1", "localhost")}" integrity="${integrity}" crossorigin="anonymous"`);

    // In a browser: the pinned script defines the elements and shows the dashboard (its origin from its own URL) …
    const page = await browser.newPage();
    await page.goto(`${host.origin}/blank`);
    const shown = await page.evaluate(
      (src: string, hash: string, tokenUrl: string) =>
        new Promise<string>((resolve) => {
          const script = document.createElement("script");
          script.src = src;
          script.integrity = hash;
          script.crossOrigin = "anonymous";
          script.onerror = () => resolve("script refused");
          script.onload = () => {
            const element = document.createElement("dashboard-embed");
            element.setAttribute("embed-id", "sales-overview");
            element.setAttribute("token-url", tokenUrl);
            for (const type of ["dashboard-load", "dashboard-error"]) element.addEventListener(type, () => resolve(type), { once: true });
            document.getElementById("app").appendChild(element);
          };
          document.head.appendChild(script);
        }),
      url,
      integrity,
      TOKEN_URL,
    );
    expect(shown).toBe("dashboard-load");
    // … and one whose hash does not match is not run (the control).
    const wrong = `sha384-${createHash("sha384").update("another script").digest("base64")}`;
    const refused = await page.evaluate(
      (src: string, hash: string) =>
        new Promise<string>((resolve) => {
          const script = document.createElement("script");
          script.src = `${src}?again`;
          script.integrity = hash;
          script.crossOrigin = "anonymous";
          script.onerror = () => resolve("script refused");
          script.onload = () => resolve("script ran");
          document.head.appendChild(script);
        }),
      url,
      wrong,
    );
    expect(refused).toBe("script refused");
    await page.close();
  }, 60_000);
});

describe("dashboard-load and the theme's font", () => {
  it("the frame's text has its final font when dashboard-load fires, on a cold view whose font arrives late", async () => {
    // A new context (nothing cached) whose theme font answers 1.5 s late.
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.startsWith("/theme-assets/") && request.resourceType() === "font")
        setTimeout(() => request.continue(), 1500);
      else request.continue();
    });
    await page.goto(`${host.origin}/blank`);
    await page.exposeFunction("measureNow", async () => {
      // The moment dashboard-load fired: the width of the title's glyphs as drawn, and in the fallback font alone.
      const frame = await frameOf(page, "sales-overview");
      return frame.evaluate(() => {
        const title = document.querySelector("h1");
        const probe = (family: string) => {
          const span = document.createElement("span");
          span.textContent = title.textContent;
          span.style.cssText = `font:${getComputedStyle(title).fontWeight} ${getComputedStyle(title).fontSize} ${family};white-space:nowrap;position:absolute`;
          document.body.appendChild(span);
          const width = span.getBoundingClientRect().width;
          span.remove();
          return width;
        };
        return {
          drawn: probe(getComputedStyle(title).fontFamily),
          fallback: probe("system-ui, sans-serif"),
          loaded: document.fonts.check('16px "Acme Sans"'),
        };
      });
    });
    await page.evaluate(
      (scriptUrl: string, tokenUrl: string) =>
        new Promise<void>((resolve) => {
          const script = document.createElement("script");
          script.src = scriptUrl;
          script.onload = () => {
            const element = document.createElement("dashboard-embed");
            element.setAttribute("embed-id", "sales-overview");
            element.setAttribute("token-url", tokenUrl);
            element.addEventListener(
              "dashboard-load",
              async () => {
                window.atLoad = await window.measureNow();
                resolve();
              },
              { once: true },
            );
            document.getElementById("app").appendChild(element);
          };
          document.head.appendChild(script);
        }),
      `${server.base}/embed.js`,
      `${TOKEN_URL}&theme=${encodeURIComponent("Acme night")}`,
    );
    const atLoad = await page.evaluate(() => window.atLoad);
    const frame = await frameOf(page, "sales-overview");
    await frame.evaluate(() => document.fonts.ready.then(() => true));
    const settled = await page.evaluate(() => window.measureNow());
    expect(atLoad.loaded).toBe(true);
    expect(atLoad.drawn).toBeCloseTo(settled.drawn, 1);
    // The control: the theme's font draws the title at another width than the fallback (so a load in the fallback would show).
    expect(Math.abs(settled.drawn - settled.fallback)).toBeGreaterThan(2);
    await context.close();
  }, 60_000);
});

describe("dashboard-navigate and the Back control", () => {
  it("a drill-through and Back each dispatch dashboard-navigate with the dashboard shown; the Back control shows while away (screenshots at 360 and 1280)", async () => {
    for (const width of [1280, 360]) {
      const page = await browser.newPage();
      await page.setViewport({ width, height: 900 });
      await page.goto(`${host.origin}/`);
      await page.evaluate(
        (tokenUrl: string) =>
          new Promise<void>((resolve) => {
            const element = document.createElement("dashboard-embed");
            element.setAttribute("embed-id", "sales-overview");
            element.setAttribute("token-url", tokenUrl);
            window.navigations = [];
            element.addEventListener("dashboard-navigate", (e: any) => window.navigations.push(e.detail));
            element.addEventListener("dashboard-load", () => resolve(), { once: true });
            document.getElementById("app").appendChild(element);
          }),
        TOKEN_URL,
      );
      const home = await frameOf(page, "sales-overview");
      expect(await home.$("[data-drill-back]")).toBeNull();
      const bar = 'section[data-panel-id="by_month"] svg path[data-pick]';
      await home.waitForSelector(bar);
      const month = await home.evaluate((s: string) => {
        const state = JSON.parse(document.getElementById("dashboard-clicks").textContent);
        return state.panels.by_month.rows[Number(document.querySelector(s).getAttribute("ecmeta_data_index"))].month;
      }, bar);
      await home.evaluate((s: string) => document.querySelector(s).dispatchEvent(new MouseEvent("click", { bubbles: true })), bar);

      await page.waitForFunction(() => window.navigations.length >= 1, { timeout: 15_000 });
      expect((await page.evaluate(() => window.navigations))[0]).toEqual({ embed_id: "month-orders", variables: { month } });
      const away = await frameOf(page, "month-orders");
      const back = await away.waitForSelector("[data-drill-back]");
      expect(await away.evaluate(() => document.querySelector("[data-drill-back]").textContent.trim())).toBe("← Back");
      await page.screenshot({ path: join(screenshots, `embed-drill-back-${width}.png`) });
      // Reachable by keyboard, with a visible focus ring.
      await back!.focus();
      await page.keyboard.press("Tab");
      await page.keyboard.down("Shift");
      await page.keyboard.press("Tab");
      await page.keyboard.up("Shift");
      expect(await away.evaluate(() => document.activeElement.hasAttribute("data-drill-back"))).toBe(true);
      expect(await away.evaluate(() => getComputedStyle(document.activeElement).outlineStyle)).toBe("solid");
      await page.screenshot({ path: join(screenshots, `embed-drill-back-focus-${width}.png`) });

      await back!.click();
      await page.waitForFunction(() => window.navigations.length >= 2, { timeout: 15_000 });
      const [, returned] = await page.evaluate(() => window.navigations);
      expect(returned.embed_id).toBe("sales-overview");
      expect(returned.variables).toMatchObject({ since: "2026-01-01" });
      const again = await frameOf(page, "sales-overview");
      expect(await again.$("[data-drill-back]")).toBeNull();
      // The host page stayed where it was (the element, not the joint history, went back).
      expect(new URL(page.url()).pathname).toBe("/");
      // The browser's own Back after another drill-through is told the same way.
      await again.waitForSelector(bar);
      await again.evaluate((s: string) => document.querySelector(s).dispatchEvent(new MouseEvent("click", { bubbles: true })), bar);
      await page.waitForFunction(() => window.navigations.length >= 3, { timeout: 15_000 });
      await frameOf(page, "month-orders");
      await page.evaluate(() => window.history.back());
      await page.waitForFunction(() => window.navigations.length >= 4, { timeout: 15_000 });
      expect((await page.evaluate(() => window.navigations)).map((n: { embed_id: string }) => n.embed_id)).toEqual([
        "month-orders",
        "sales-overview",
        "month-orders",
        "sales-overview",
      ]);
      await page.close();
    }
  }, 120_000);
});

describe("the SDK package in a fresh React app", () => {
  it("installs from its packed tarball and type-checks there; tsc refuses a misspelled event name", () => {
    expect(reactApp.typecheck.status, reactApp.typecheck.output).toBe(0);
    expect(reactApp.misspelled.status).not.toBe(0);
    expect(reactApp.misspelled.output).toMatch(/misspelled\.ts\(5,\d+\): error TS2345: Argument of type '"dashbord-load"'/);
  });

  it("<DashboardEmbed> mounts, hears onClick and onVariables, and setVariables through its ref shows the new values", async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`${host.origin}/react/`);
    await page.waitForFunction(() => window.heard?.some((e: any) => e.type === "load"), { timeout: 30_000 });
    const frame = await frameOf(page, "sales-overview");
    expect(await frame.evaluate(() => document.body.innerText)).toContain("since 2026-01-01");
    const slice = 'section[data-panel-id="by_product"] svg path[data-pick]';
    await frame.waitForSelector(slice);
    const product = await frame.evaluate((s: string) => {
      const state = JSON.parse(document.getElementById("dashboard-clicks").textContent);
      return state.panels.by_product.rows[Number(document.querySelector(s).getAttribute("ecmeta_data_index"))].product;
    }, slice);
    await frame.evaluate((s: string) => document.querySelector(s).dispatchEvent(new MouseEvent("click", { bubbles: true })), slice);
    await page.waitForFunction(() => window.heard.some((e: any) => e.type === "variables"), { timeout: 15_000 });
    const heard = await page.evaluate(() => window.heard);
    expect(heard.find((e: any) => e.type === "click").detail).toEqual({ panel_id: "by_product", value: product });
    expect(heard.find((e: any) => e.type === "variables").detail).toMatchObject({ since: "2026-01-01", product });

    await page.evaluate(() => window.setVariables({ since: "2026-03-01", product: "Storage" }));
    await page.waitForFunction(
      () => window.heard.some((e: any) => e.type === "variables" && e.detail.product === "Storage" && e.detail.since === "2026-03-01"),
      { timeout: 15_000 },
    );
    const shown = await frameOf(page, "sales-overview");
    await shown.waitForFunction(() => document.body.innerText.includes("your sales of Storage since"), { timeout: 15_000 });
    await page.screenshot({ path: join(screenshots, "embed-react-host.png"), fullPage: true });
    await page.close();
  }, 90_000);
});
