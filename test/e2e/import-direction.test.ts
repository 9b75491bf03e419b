// The import direction of src/ (docs/architecture.md "Folders and imports"), checked by
// scripts/check-imports.mjs before `npm test` runs any test: the real tree passes, and small
// trees with one import against the direction are refused with the file, the import and the rule.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const script = join(root, "scripts", "check-imports.mjs");
const trees: string[] = [];

/** A src/ tree of the given files (path → text) in a temporary folder. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "check-imports-"));
  trees.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function check(srcDir?: string) {
  const run = spawnSync(process.execPath, srcDir ? [script, srcDir] : [script], { cwd: root, encoding: "utf8" });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

// Imports that keep the direction: every floor may import below itself.
const sound = {
  "lib/html.ts": `export const escapeHtml = (s: string) => s;\n`,
  "lib/csv.ts": `import { escapeHtml } from "./html";\nexport const csv = escapeHtml;\n`,
  "env.ts": `export interface Env { DB: unknown }\n`,
  "config.ts": `import type { Env } from "./env";\nimport { csv } from "./lib/csv";\nexport const config = (env: Env) => csv(String(env));\n`,
  "db/schema.ts": `import { csv } from "../lib/csv";\nimport type { Env } from "../env";\nexport const t = csv;\n`,
  "http/errors.ts": `import { t } from "../db/schema";\nimport { config } from "../config";\nexport const e = [t, config];\n`,
  "customers/service.ts": `import { e } from "../http/errors";\nimport { z } from "zod";\nexport const s = e;\n`,
  "delivery/run/start.ts": `import { e } from "../../http/errors";\nexport const start = e;\n`,
  "delivery/create/jobs.ts": `import { start } from "../run/start";\nexport const create = start;\n`,
  "delivery/routes.ts": `import {\n  s,\n} from "../customers/service";\nimport { create } from "./create/jobs";\nexport const r = [s, create];\n`,
  "assemble-app.ts": `import { r } from "./delivery/routes";\nexport const createApp = () => r;\n`,
  "index.ts": `import { createApp } from "./assemble-app";\nexport default createApp;\n`,
};

afterEach(() => {
  for (const dir of trees.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the import direction of src/ (scripts/check-imports.mjs)", () => {
  it("passes the project's src/ as it is", () => {
    const run = check();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^check-imports: \d+ files, imports point one way/);
  });

  it("passes a tree whose every import points down (control)", () => {
    const run = check(tree(sound));
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`${Object.keys(sound).length} files`);
  });

  it.each([
    [
      "db/schema.ts",
      `import { JOB_KINDS } from "../delivery/job-vocabulary";\n`,
      "../delivery/job-vocabulary",
      "src/db imports only src/db, src/lib, src/env.ts and src/config.ts",
    ],
    ["db/client.ts", `import { e } from "../http/errors";\n`, "../http/errors", "src/db imports only"],
    ["lib/log.ts", `import type { Database } from "../db/client";\n`, "../db/client", "src/lib imports only src/lib"],
    ["lib/stages.ts", `export { config } from "../config";\n`, "../config", "src/lib imports only src/lib"],
    ["http/auth.ts", `import {\n  s,\n} from "../customers/service";\n`, "../customers/service", "src/http imports no capability folder"],
    ["http/dev.ts", `const m = await import("../delivery/routes");\n`, "../delivery/routes", "src/http imports no capability folder"],
    [
      "reports/page.ts",
      `import { createApp } from "../assemble-app";\n`,
      "../assemble-app",
      "a capability imports neither src/assemble-app.ts nor src/index.ts",
    ],
    [
      "dashboards/sources/d1.ts",
      `import worker from "../../index";\n`,
      "../../index",
      "a capability imports neither src/assemble-app.ts nor src/index.ts",
    ],
    ["assemble-app.ts", `import worker from "./index";\n`, "./index", "src/assemble-app.ts does not import src/index.ts"],
    ["env.ts", `import { t } from "./db/schema";\n`, "./db/schema", "src/env.ts and src/config.ts import only src/lib and each other"],
    [
      "delivery/run/start.ts",
      `import { create } from "../create/jobs";\n`,
      "../create/jobs",
      "delivery's running room never imports its creating room",
    ],
    [
      "schedules/service.ts",
      `import { tick } from "./runner/tick";\n`,
      "./runner/tick",
      "the schedules' CRUD service never imports their runner",
    ],
    [
      "delivery/run/capture/station.ts",
      `export type { Scope } from "../../create";\n`,
      "../../create",
      "delivery's running room never imports its creating room",
    ],
  ])("refuses %s importing %j, naming the file, the import and the rule", (file, text, specifier, rule) => {
    const run = check(tree({ ...sound, [file]: text + (sound[file as keyof typeof sound] ?? "") }));
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(`${file.replaceAll(".", "\\.")}: imports ${specifier.replaceAll(".", "\\.")} \\(${rule.replaceAll(".", "\\.")}`),
    );
    expect(lines[1]).toBe('check-imports: 1 import(s) against the direction of src/ (see docs/architecture.md "Folders and imports")');
  });
});

// The layout of issue 34: tokens/ and data/ above http/, dev/ above the capabilities, browser
// code in browser/ folders, capability folders in one direction only, no re-export across folders.
const layered = {
  ...sound,
  "tokens/signed.ts": `import { e } from "../http/errors";\nimport { t } from "../db/schema";\nexport const sign = [e, t];\n`,
  "tokens/embed.ts": `import { sign } from "./signed";\nimport { d1 } from "../data/sources/d1";\nexport const embed = [sign, d1];\n`,
  "data/sources/d1.ts": `import { e } from "../../http/errors";\nimport { csv } from "../../lib/csv";\nexport const d1 = [e, csv];\n`,
  "data/customer-view.ts": `import { d1 } from "./sources/d1";\nexport const view = [d1];\n`,
  "data/index.ts": `export { d1 } from "./sources/d1";\nexport type * from "./sources/d1";\n`,
  "dashboards/render.ts": `import { view } from "../data/customer-view";\nimport type { embed } from "../tokens/embed";\nimport { s } from "../customers/service";\nexport const render = [view, s];\n`,
  "dashboards/repository.ts": `export {\n  render,\n} from "./render";\nexport * as rendering from "./render";\n`,
  "dashboards/browser/embed-element.ts": `import { frame } from "../../http/browser/frame";\nimport { h } from "./dom";\nexport const element = [frame, h];\n`,
  "dashboards/browser/dom.ts": `export const h = (tag: string) => document.createElement(tag);\n`,
  "http/browser/frame.ts": `export const frame = () => window.parent;\n`,
  "dashboards/embed-routes.ts": `import script from "virtual:browser/embed-element";\nimport { render } from "./repository";\nexport const routes = [script, render];\n`,
  "delivery/run/browser.ts": `import { render } from "../../dashboards/render";\nexport const station = render;\n`,
  "alerts/evaluate.ts": `import { render } from "../dashboards/render";\nimport { station } from "../delivery/run/browser";\nexport const evaluate = [render, station];\n`,
  "dev/routes.ts": `import { evaluate } from "../alerts/evaluate";\nimport { view } from "../data/customer-view";\nimport { r } from "../delivery/routes";\nexport const dev = [evaluate, view, r];\n`,
  "assemble-app.ts": `import { r } from "./delivery/routes";\nimport { dev } from "./dev/routes";\nexport const createApp = () => [r, dev];\n`,
  "index.ts": `import { createApp } from "./assemble-app";\nexport { station as Station } from "./delivery/run/browser";\nexport * from "./dev/routes";\nexport default createApp;\n`,
};

/** The lines of a refused run's stderr, after checking its exit status. */
function refusal(files: Record<string, string>): string[] {
  const run = check(tree(files));
  expect(run.stdout).toBe("");
  expect(run.status).toBe(1);
  return run.stderr.trim().split("\n");
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("floors, browser code, folder cycles and re-exports (scripts/check-imports.mjs)", () => {
  it("passes a tree with tokens/, data/, dev/, browser/ folders, one-way capability folders and same-folder re-exports (control)", () => {
    const run = check(tree(layered));
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`${Object.keys(layered).length} files`);
  });

  it.each([
    [
      "data/query-runner.ts",
      `import { s } from "../customers/service";\n`,
      "../customers/service",
      "src/data imports only src/data, src/http and the floors below",
    ],
    ["data/placeholders.ts", `const m = await import("../dev/routes");\n`, "../dev/routes", "src/data imports only src/data"],
    ["data/filters.ts", `import { embed } from "../tokens/embed";\n`, "../tokens/embed", "src/data imports only"],
    ["tokens/preview.ts", `import type { render } from "../dashboards/render";\n`, "../dashboards/render", "src/tokens imports only"],
    ["http/pages.ts", `import { sign } from "../tokens/signed";\n`, "../tokens/signed", "src/http imports no capability folder"],
    ["db/client.ts", `import { d1 } from "../data/sources/d1";\n`, "../data/sources/d1", "src/db imports only"],
    ["customers/view.ts", `import { dev } from "../dev/routes";\n`, "../dev/routes", "a capability does not import src/dev"],
    [
      "dev/bench.ts",
      `import { createApp } from "../assemble-app";\n`,
      "../assemble-app",
      "src/dev imports neither src/assemble-app.ts nor src/index.ts",
    ],
    [
      "dashboards/browser/subscribe-control.ts",
      `import { render } from "../render";\n`,
      "../render",
      "browser code imports only files in browser/ folders",
    ],
    [
      "report-builder/browser/builder.ts",
      `import { csv } from "../../lib/csv";\n`,
      "../../lib/csv",
      "browser code imports only files in browser/ folders",
    ],
    [
      "dashboards/viewer.ts",
      `import { element } from "./browser/embed-element";\n`,
      "./browser/embed-element",
      "only browser code imports a browser/ file by a relative path",
    ],
  ])("refuses %s importing %j, naming the file, the import and the rule", (file, text, specifier, rule) => {
    const lines = refusal({ ...layered, [file]: text + (layered[file as keyof typeof layered] ?? "") });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`${escapeRegExp(file)}: imports ${escapeRegExp(specifier)} \\(${escapeRegExp(rule)}`));
    expect(lines[1]).toBe('check-imports: 1 import(s) against the direction of src/ (see docs/architecture.md "Folders and imports")');
  });

  it("refuses two capability folders importing each other, with one example import per edge", () => {
    const lines = refusal({ ...sound, "customers/links.ts": `import { r } from "../delivery/routes";\nexport const l = r;\n` });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^folder cycle: customers -> delivery -> customers \(\S*customers\/links\.ts: \.\.\/delivery\/routes; \S*delivery\/routes\.ts: \.\.\/customers\/service\)$/,
    );
    expect(lines[1]).toBe('check-imports: 1 folder cycle(s) among capabilities (see docs/architecture.md "Folders and imports")');
  });

  it("refuses a ring of three capability folders, and passes the same chain without its closing import (control)", () => {
    const chain = {
      ...layered,
      "schedules/runner.ts": `import { evaluate } from "../alerts/evaluate";\nexport const tick = evaluate;\n`,
      "webhooks/send.ts": `import { tick } from "../schedules/runner";\nexport const send = tick;\n`,
    };
    const run = check(tree(chain));
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);

    const lines = refusal({ ...chain, "alerts/notify.ts": `import type { send } from "../webhooks/send";\n` });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^folder cycle: alerts -> webhooks -> schedules -> alerts \(\S*alerts\/notify\.ts: \.\.\/webhooks\/send; \S*webhooks\/send\.ts: \.\.\/schedules\/runner; \S*schedules\/runner\.ts: \.\.\/alerts\/evaluate\)$/,
    );
    expect(lines[1]).toBe('check-imports: 1 folder cycle(s) among capabilities (see docs/architecture.md "Folders and imports")');
  });

  it.each([
    ["alerts/repository.ts", `export {\n  render,\n  type view,\n} from "../dashboards/render";\n`, "../dashboards/render"],
    ["alerts/repository.ts", `export * from "../customers/service";\n`, "../customers/service"],
    ["alerts/repository.ts", `export type { Scope } from "../delivery/routes";\n`, "../delivery/routes"],
    ["dashboards/render.ts", `export * as view from "../data/customer-view";\n`, "../data/customer-view"],
    ["delivery/job-state.ts", `export { JOB_KINDS } from "../db/job-vocabulary";\n`, "../db/job-vocabulary"],
    ["tokens/embed.ts", `export { view } from "../data/customer-view";\n`, "../data/customer-view"],
  ])("refuses %s re-exporting %j from another folder of src/", (file, text, specifier) => {
    const lines = refusal({ ...layered, [file]: text + (layered[file as keyof typeof layered] ?? "") });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(`${escapeRegExp(file)}: re-exports from ${escapeRegExp(specifier)} \\(call the owner directly\\)$`),
    );
    expect(lines[1]).toBe('check-imports: 1 re-export(s) from another folder (see docs/architecture.md "Folders and imports")');
  });
});

// The layout of issue 51: the API tokens' guard, the leases and the customers' budgets in
// src/rate-limits/, below src/http/ (whose auth uses the leases) and above src/db/.
const limited = {
  ...layered,
  "rate-limits/guard.ts": `import { t } from "../db/schema";\nimport { config } from "../config";\nexport const guard = [t, config];\n`,
  "rate-limits/leases.ts": `import { guard } from "./guard";\nimport { csv } from "../lib/csv";\nexport const leases = [guard, csv];\n`,
  "http/auth.ts": `import { leases } from "../rate-limits/leases";\nimport { e } from "./errors";\nexport const auth = [leases, e];\n`,
  "data/budget.ts": `import type { guard } from "../rate-limits/guard";\nexport const budget = 1;\n`,
  "report-builder/builder-request.ts": `import { leases } from "../rate-limits/leases";\nimport { e } from "../http/errors";\nexport const opened = [leases, e];\n`,
};

describe("the rate-limits floor (scripts/check-imports.mjs)", () => {
  it("passes a tree whose rate-limits/ imports db/ and below and is imported by http/, data/ and a capability (control)", () => {
    const run = check(tree(limited));
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`${Object.keys(limited).length} files`);
  });

  it.each([
    [
      "rate-limits/leases.ts",
      `import { e } from "../http/errors";\n`,
      "../http/errors",
      "src/rate-limits imports only src/rate-limits, src/db",
    ],
    ["rate-limits/guard.ts", `import { s } from "../customers/service";\n`, "../customers/service", "src/rate-limits imports only"],
    ["rate-limits/guard.ts", `import { d1 } from "../data/sources/d1";\n`, "../data/sources/d1", "src/rate-limits imports only"],
    ["db/client.ts", `import { guard } from "../rate-limits/guard";\n`, "../rate-limits/guard", "src/db imports only"],
    ["lib/log.ts", `import type { leases } from "../rate-limits/leases";\n`, "../rate-limits/leases", "src/lib imports only src/lib"],
  ])("refuses %s importing %j, naming the file, the import and the rule", (file, text, specifier, rule) => {
    const lines = refusal({ ...limited, [file]: text + (limited[file as keyof typeof limited] ?? "") });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`${escapeRegExp(file)}: imports ${escapeRegExp(specifier)} \\(${escapeRegExp(rule)}`));
    expect(lines[1]).toBe('check-imports: 1 import(s) against the direction of src/ (see docs/architecture.md "Folders and imports")');
  });
});

// The view floor of issue 51: src/view/ above src/lib/, below everything that draws a page but
// src/db/; browser code imports the view's pure modules listed in the checker (BROWSER_SHARED)
// instead of declaring twins of them, and those modules import nothing else.
const viewed = {
  ...layered,
  "view/fill.ts": `export const fill = (s: string) => s;\n`,
  "view/date-field.ts": `import { fill } from "./fill";\nexport const showDate = fill;\n`,
  "view/presentation.ts": `import { z } from "zod";\nimport { csv } from "../lib/csv";\nimport { fill } from "./fill";\nexport const p = [z, csv, fill];\n`,
  "http/pages.ts": `import { p } from "../view/presentation";\nexport const page = p;\n`,
  "customers/view.ts": `import { p } from "../view/presentation";\nexport const v = p;\n`,
  "http/browser/frame.ts": `import { showDate } from "../../view/date-field";\nexport const frame = () => [window.parent, showDate];\n`,
  "report-builder/browser/words.ts": `import { fill } from "../../view/fill.ts";\nexport const t = fill;\n`,
};

describe("the view floor and the view's modules shared with browser code (scripts/check-imports.mjs)", () => {
  it("passes a tree whose capabilities, http/ and browser code import the view, the browser code only its shared modules (control)", () => {
    const run = check(tree(viewed));
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`${Object.keys(viewed).length} files`);
  });

  it.each([
    ["view/style.ts", `import { t } from "../db/schema";\n`, "../db/schema", "src/view imports only src/view and src/lib"],
    ["view/format.ts", `import { config } from "../config";\n`, "../config", "src/view imports only src/view and src/lib"],
    ["view/words.ts", `import { s } from "../customers/service";\n`, "../customers/service", "src/view imports only src/view and src/lib"],
    ["db/schema.ts", `import { p } from "../view/presentation";\n`, "../view/presentation", "src/db imports only"],
    [
      "dashboards/browser/clicks.ts",
      `import { p } from "../../view/presentation";\n`,
      "../../view/presentation",
      "browser code imports only files in browser/ folders and the view's modules shared with it",
    ],
    [
      "view/date-field.ts",
      `import { p } from "./presentation";\n`,
      "./presentation",
      "a view module shared with browser code imports only other shared modules, no package",
    ],
    [
      "view/fill.ts",
      `import { z } from "zod";\n`,
      "zod",
      "a view module shared with browser code imports only other shared modules, no package",
    ],
  ])("refuses %s importing %j, naming the file, the import and the rule", (file, text, specifier, rule) => {
    const lines = refusal({ ...viewed, [file]: text + (viewed[file as keyof typeof viewed] ?? "") });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`${escapeRegExp(file)}: imports ${escapeRegExp(specifier)} \\(${escapeRegExp(rule)}`));
    expect(lines[1]).toBe('check-imports: 1 import(s) against the direction of src/ (see docs/architecture.md "Folders and imports")');
  });
});
