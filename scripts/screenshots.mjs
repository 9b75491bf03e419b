#!/usr/bin/env node
// Screenshots of the demo dashboards for the README (docs/*.png): starts the service on a
// fresh local state, opens each example dashboard for a demo customer in headless Chromium.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startLocalServer } from "./lib/local-server.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const chromium = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/lib/chromium/chromium"].filter(Boolean).find((p) => existsSync(p));
if (!chromium) throw new Error("No Chromium found (apt-get install chromium).");
const port = 19887;
const server = await startLocalServer({ port });
try {
  const vars = server.vars;
  const customer = await fetch(`${server.base}/api/get_customer/`, {
    method: "POST",
    headers: { "Service-Authorization": `Token ${vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ provided_id: process.argv[2] ?? "acme-berlin" }),
  }).then((r) => r.json());
  for (const file of readdirSync(join(root, "examples", "dashboards")).filter((f) => f.endsWith(".json"))) {
    const { embed_id } = JSON.parse(readFileSync(join(root, "examples", "dashboards", file), "utf8"));
    const out = join(root, "docs", `${embed_id}.png`);
    spawnSync(chromium, [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", `--user-data-dir=${mkdtempSync(join(tmpdir(), "chromium-"))}`,
      "--hide-scrollbars", "--window-size=1280,1080", `--screenshot=${out}`,
      `${server.base}/embed/${embed_id}?customer_token=${customer.customer.token}`,
    ], { stdio: "ignore" });
    console.log(`wrote ${out}`);
  }
} finally {
  await server.stop();
}
