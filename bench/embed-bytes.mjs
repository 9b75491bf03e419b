#!/usr/bin/env node
// `npm run bench:embed-bytes`: the bytes of the embed page (sales-overview, acme-berlin, the
// built-in theme, 1280 px and 360 px) as served by this checkout and by the commit before the
// accessibility work (charts named and described, Show as table, readable colors, focus ring;
// docs/accessibility.md), in the same run, the same way: each tree's own `npm start`, a token
// minted through the API, the page fetched as a browser would. Raw and gzip bytes and their ratio;
// the goal is at most +5 % for the accessible page. `--before <commit>` measures against another;
// `--out <dir>` also writes each page there (before-1280.html, after-1280.html, …) to compare.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { root } from "./lib/harness.mjs";

/** The last commit before the accessibility work (its parent: "Pages pass axe-core's WCAG 2.x A/AA rules"). */
const BEFORE_ACCESSIBILITY = "92bd11f";
const at = process.argv.indexOf("--before");
const before = at > 0 ? process.argv[at + 1] : BEFORE_ACCESSIBILITY;
const WIDTHS = [1280, 360];
const outAt = process.argv.indexOf("--out");
const out = outAt > 0 ? process.argv[outAt + 1] : null;

/** The embed page's bytes at each width, served by the `npm start` of the checkout at `tree` (`label` names the files of `--out`). */
async function measure(tree, label) {
  const { freePort, startLocalServer } = await import(pathToFileURL(join(tree, "scripts", "lib", "local-server.mjs")).href);
  const server = await startLocalServer({ port: await freePort() });
  try {
    const minted = await fetch(`${server.base}/api/generate_embed_token/`, {
      method: "POST",
      headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ provided_id: "acme-berlin", dashboard_embed_id: "sales-overview" }),
    }).then((r) => r.json());
    if (minted.success !== 1) throw new Error(`generate_embed_token: ${JSON.stringify(minted)}`);
    const sizes = {};
    for (const width of WIDTHS) {
      // Twice: the first request warms the isolate; both answers must be the same page.
      await fetch(`${minted.embed_url}&width=${width}`).then((r) => r.text());
      const response = await fetch(`${minted.embed_url}&width=${width}`);
      const page = await response.text();
      if (response.status !== 200) throw new Error(`embed page at ${width} px: ${response.status}`);
      sizes[width] = { raw: Buffer.byteLength(page), gzip: gzipSync(page).length };
      if (out) writeFileSync(join(out, `${label}-${width}.html`), page);
    }
    return sizes;
  } finally {
    await server.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), "embed-bytes-"));
const beforeTree = join(work, "before");
try {
  execFileSync("git", ["worktree", "add", "--detach", beforeTree, before], { cwd: root, stdio: "ignore" });
  symlinkSync(join(root, "node_modules"), join(beforeTree, "node_modules"));
  const commit = execFileSync("git", ["log", "-1", "--format=%h %s", before], { cwd: root, encoding: "utf8" }).trim();
  if (out) mkdirSync(out, { recursive: true });
  const old = await measure(beforeTree, "before");
  const now = await measure(root, "after");
  console.log(`\nEmbed page bytes, sales-overview for acme-berlin, built-in theme (before: ${commit.slice(0, 80)})`);
  const pad = (s, n) => String(s).padStart(n);
  console.log(
    `${"width".padEnd(8)}${pad("before raw", 12)}${pad("after raw", 12)}${pad("ratio", 8)}${pad("before gz", 12)}${pad("after gz", 12)}${pad("ratio", 8)}`,
  );
  for (const width of WIDTHS) {
    const [a, b] = [old[width], now[width]];
    const pct = (x, y) => `${x >= y ? "+" : ""}${(((x - y) / y) * 100).toFixed(1)} %`;
    console.log(
      `${`${width} px`.padEnd(8)}${pad(a.raw, 12)}${pad(b.raw, 12)}${pad(pct(b.raw, a.raw), 8)}${pad(a.gzip, 12)}${pad(b.gzip, 12)}${pad(pct(b.gzip, a.gzip), 8)}`,
    );
  }
} finally {
  execFileSync("git", ["worktree", "remove", "--force", beforeTree], { cwd: root, stdio: "ignore" });
  rmSync(work, { recursive: true, force: true });
}
