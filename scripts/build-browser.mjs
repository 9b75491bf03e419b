#!/usr/bin/env node
// Builds the scripts the browser runs (src/**/browser/*.ts) into .build/browser/ (see
// scripts/lib/browser-build.mjs). Run by wrangler itself before `wrangler dev` and
// `wrangler deploy` (wrangler.toml [build]), so `npm start` and deploys always serve the
// current sources, and by `npm test` and vitest.config.mts before the tests.
// Usage: node scripts/build-browser.mjs [--sizes]
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { buildBrowserScripts } from "./lib/browser-build.mjs";

const built = await buildBrowserScripts();
// The compressed size too: what a browser downloads (the console's budget is counted compressed, docs/console.md).
if (process.argv.includes("--sizes"))
  for (const { name, path, bytes } of built) console.log(`${name}.js ${bytes} bytes, ${gzipSync(readFileSync(path)).length} gzip`);
