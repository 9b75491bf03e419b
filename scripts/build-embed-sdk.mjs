#!/usr/bin/env node
// Builds the embed SDK package (packages/embed, README.md there) into packages/embed/dist/:
//   index.js  the elements, from the service's own src/dashboards/browser/ (the source embed.js
//             is built from, scripts/lib/browser-build.mjs: one source, two outputs)
//   react.js  the React components, importing ./index.js and the app's own React
// ES modules, not minified (the app's bundler minifies; what runs stays readable), ASCII only.
// Run by `npm pack` in packages/embed (its `prepack`), and by the tests that pack it.
// Usage: node scripts/build-embed-sdk.mjs [--sizes]
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const packageDir = join(root, "packages", "embed");
const dist = join(packageDir, "dist");
mkdirSync(dist, { recursive: true });

const common = {
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: false,
  charset: "ascii",
  legalComments: "none",
  absWorkingDir: root,
  tsconfig: join(packageDir, "tsconfig.json"),
  logLevel: "error",
};

/** react.js takes the elements from the package's own index.js, so an app holds one copy of them. */
const indexIsExternal = {
  name: "index-is-external",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\/index$/ }, () => ({ path: "./index.js", external: true }));
  },
};

await Promise.all([
  build({ ...common, entryPoints: [join(packageDir, "src", "index.ts")], outfile: join(dist, "index.js") }),
  build({
    ...common,
    entryPoints: [join(packageDir, "src", "react.ts")],
    outfile: join(dist, "react.js"),
    external: ["react"],
    plugins: [indexIsExternal],
  }),
]);

if (process.argv.includes("--sizes")) {
  for (const name of ["index.js", "react.js"]) {
    const bytes = readFileSync(join(dist, name));
    const minified = await build({ ...common, entryPoints: [join(dist, name)], minify: true, write: false, bundle: false });
    console.log(
      `${name} ${bytes.length} bytes, ${gzipSync(bytes).length} gzip; minified ${minified.outputFiles[0].contents.length}, ${gzipSync(minified.outputFiles[0].contents).length} gzip`,
    );
  }
}
