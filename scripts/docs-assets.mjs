#!/usr/bin/env node
// The OpenAPI explorer at /docs/explorer/ is Swagger UI, served from the Worker's static
// assets (public/, wrangler.toml [assets]) so it works offline and needs no CDN. Its files
// come from the swagger-ui-dist package: `npm install` (postinstall) copies them into
// public/docs/explorer/vendor/, and `npm start` / `npm test` do again when they are missing.
import { copyFileSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "node_modules", "swagger-ui-dist");
const target = join(root, "public", "docs", "explorer", "vendor");
const files = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE", "NOTICE"];

if (!existsSync(source)) {
  console.warn("docs-assets: swagger-ui-dist is not installed (run npm install); /docs/explorer/ will not load.");
} else {
  mkdirSync(target, { recursive: true });
  for (const file of files) {
    const from = join(source, file);
    const to = join(target, file);
    if (!existsSync(from)) continue;
    if (existsSync(to) && statSync(to).size === statSync(from).size && statSync(to).mtimeMs >= statSync(from).mtimeMs) continue;
    copyFileSync(from, to);
  }
}
