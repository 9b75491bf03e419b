// `npm run deploy` deploys the production environment (docs/getting-started.md "Configuration and deployment"), never the
// development configuration (/_dev/outbox open, the local embed secret): run the real
// script as a dry run (no Cloudflare account needed) and read what it would deploy.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

describe("npm run deploy", () => {
  it("targets --env production", () => {
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts as Record<string, string>;
    expect(scripts.deploy).toBe("wrangler deploy --env production");
  });

  it("deploys the production bindings and vars, not development's (dry run)", () => {
    const out = mkdtempSync(join(tmpdir(), "deploy-dry-run-"));
    try {
      const run = spawnSync("npm", ["run", "deploy", "--", "--dry-run", "--outdir", out], {
        cwd: root,
        encoding: "utf8",
        timeout: 150_000,
      });
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.status, output).toBe(0);
      expect(output).toMatch(/env\.ENVIRONMENT \("production"\)/);
      // Production switches everything off that only tests and development use.
      for (const name of ["DIAGNOSTICS", "FAULT_INJECTION", "DEV_ROUTES"])
        expect(output).toMatch(new RegExp(`env\\.${name} \\("false"\\)`));
      expect(output).not.toMatch(/"development"/);
      expect(output).toMatch(/customer-dashboard-production/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
