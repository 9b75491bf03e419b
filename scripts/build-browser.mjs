#!/usr/bin/env node
// Builds the scripts the browser runs (src/**/browser/*.ts) into .build/browser/ (see
// scripts/lib/browser-build.mjs). Run by wrangler itself before `wrangler dev` and
// `wrangler deploy` (wrangler.toml [build]), so `npm start` and deploys always serve the
// current sources, and by `npm test` and vitest.config.mts before the tests.
// Usage: node scripts/build-browser.mjs [--sizes]
import { buildBrowserScripts } from "./lib/browser-build.mjs";

const built = await buildBrowserScripts();
if (process.argv.includes("--sizes")) for (const { name, bytes } of built) console.log(`${name}.js ${bytes} bytes`);
