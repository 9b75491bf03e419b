// The import direction of src/ (README "Folders and imports"), checked by
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
    expect(lines[1]).toBe('check-imports: 1 import(s) against the direction of src/ (see README "Folders and imports")');
  });
});
