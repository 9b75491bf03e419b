import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The tests' browser (scripts/lib/chromium.mjs, launchBrowser) keeps its profile in TMPDIR
// while it runs and takes it away when it closes: a run of the suite leaves nothing behind.
const fixture = join(import.meta.dirname, "fixtures", "browser-profile.mjs");
const tmp = mkdtempSync(join(tmpdir(), "browser-profile-test-"));

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the tests' browser profile", () => {
  it("lives in TMPDIR while the browser runs and is gone once it closes", () => {
    const out = execFileSync(process.execPath, [fixture], { env: { ...process.env, TMPDIR: tmp }, encoding: "utf8", timeout: 60_000 });
    const { profile, existed, text } = JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
    // Control: the browser ran, drew the page and had its profile in this TMPDIR.
    expect(text).toBe("profile check");
    expect(existed).toBe(true);
    expect(profile.startsWith(`${tmp}/`)).toBe(true);
    // Nothing of it is left.
    expect(readdirSync(tmp)).toEqual([]);
  }, 90_000);
});
