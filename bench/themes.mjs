#!/usr/bin/env node
// `npm run bench:themes`: what a theme costs, against the real `npm start` (local workerd,
// D1, R2, Browser Rendering on the local Chromium), all in one run:
//   throughput  embed page requests/s (8 at a time) in the built-in theme and in the demo's
//               "Acme night" (its own WOFF2 font and logo), against the floor of GET /health
//               measured in the same run, rounds interleaved;
//   bytes       what the theme adds to the page (HTML, gzip), and the font and logo the
//               browser fetches once (immutable);
//   capture     PNG screenshot time (request → file) with the custom font and with the same
//               theme without it, median of 10 each, interleaved.
import { gzipSync } from "node:zlib";
import { DARK_THEME, demoThemes } from "../scripts/lib/demo-themes.mjs";
import { apiHeaders, interleave, kib, median, startServer, throughput as rate } from "./lib/harness.mjs";

const ROUNDS = 3;
const ROUND_MS = 4000;
const CONCURRENCY = 8;
const CAPTURES = 10;

const server = await startServer({
  port: 19993,
  vars: { RATE_LIMIT_PER_MINUTE: 1000000000, DELIVERY_LIMIT_PER_MINUTE: 1000000, LOG_LEVEL: "warn" },
  flags: ["--log-level", "warn"],
});
const api = async (path, body) => {
  const response = await fetch(`${server.base}${path}`, {
    method: "POST",
    headers: apiHeaders(server),
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};

/** Requests/s of `url` with CONCURRENCY requests in flight for `ms`. */
const throughput = (url, ms) => rate(url, ms, CONCURRENCY);

try {
  // The dark theme without its font (same colors, same logo): the capture's control.
  const night = demoThemes().find((t) => t.name === DARK_THEME);
  const { fonts: _fonts, ...withoutFont } = night.theme;
  const plain = await api("/api/create_theme/", { name: "Acme night no font", theme: withoutFont });
  if (plain.status !== 200 && plain.body.error?.code !== "theme_exists") throw new Error(JSON.stringify(plain.body));

  const mint = async (theme) => {
    const res = await api("/api/generate_embed_token/", {
      provided_id: "acme-berlin",
      dashboard_embed_id: "sales-overview",
      expires_in: 3600,
      ...(theme ? { theme } : {}),
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return `${res.body.embed_url}&width=1280`;
  };
  const builtinUrl = await mint(undefined);
  const nightUrl = await mint(DARK_THEME);
  const health = `${server.base}/health`;
  for (const url of [builtinUrl, nightUrl, health]) await throughput(url, 500); // warm

  const rates = await interleave(ROUNDS, {
    floor: () => throughput(health, ROUND_MS),
    builtin: () => throughput(builtinUrl, ROUND_MS),
    night: () => throughput(nightUrl, ROUND_MS),
  });

  const builtinHtml = await fetch(builtinUrl).then((r) => r.text());
  const nightHtml = await fetch(nightUrl).then((r) => r.text());
  const assets = [...new Set(nightHtml.match(/\/theme-assets\/[0-9a-f]{64}/g) ?? [])];
  const assetBytes = await Promise.all(
    assets.map(async (path) => (await fetch(`${server.base}${path}`).then((r) => r.arrayBuffer())).byteLength),
  );

  const capture = async (theme) => {
    const started = performance.now();
    const job = await api("/api/dashboard/screenshot", {
      provided_id: "acme-berlin",
      dashboard_embed_id: "sales-overview",
      width: 1280,
      theme,
    });
    if (job.status !== 200) throw new Error(JSON.stringify(job.body));
    const link = `${job.body.url}?wait=30`.replace("http://localhost", "http://127.0.0.1");
    for (;;) {
      const file = await fetch(link);
      if (file.status === 200) {
        await file.arrayBuffer();
        return performance.now() - started;
      }
      if (file.status !== 202) throw new Error(`download answered ${file.status}: ${await file.text()}`);
    }
  };
  await capture(DARK_THEME); // warm the capture station's browser
  const captures = await interleave(CAPTURES, { font: () => capture(DARK_THEME), noFont: () => capture("Acme night no font") });

  const floor = median(rates.floor);
  console.log(`
Themes, local runtime (npm start), sales-overview for acme-berlin at 1280 px, one run
  Embed page throughput, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds of ${ROUND_MS / 1000} s (interleaved)
    floor GET /health          ${floor.toFixed(0)} req/s
    built-in theme             ${median(rates.builtin).toFixed(1)} req/s  (${(median(rates.builtin) / floor).toFixed(3)} of the floor)
    "${DARK_THEME}" (font, logo)  ${median(rates.night).toFixed(1)} req/s  (${(median(rates.night) / floor).toFixed(3)} of the floor; ${(median(rates.night) / median(rates.builtin)).toFixed(2)}× built-in)
  Bytes
    page HTML built-in ${kib(Buffer.byteLength(builtinHtml))} (${kib(gzipSync(builtinHtml).length)} gzip), "${DARK_THEME}" ${kib(Buffer.byteLength(nightHtml))} (${kib(gzipSync(nightHtml).length)} gzip): +${Buffer.byteLength(nightHtml) - Buffer.byteLength(builtinHtml)} B (+${gzipSync(nightHtml).length - gzipSync(builtinHtml).length} B gzip)
    fetched once, cached immutable: ${assets.length} assets, ${assetBytes.map((b) => kib(b)).join(" + ")}
  PNG capture, request → file, median of ${CAPTURES} each (interleaved)
    with the WOFF2 font (inlined)   ${median(captures.font).toFixed(0)} ms
    same theme without the font     ${median(captures.noFont).toFixed(0)} ms   (font: ${(median(captures.font) / median(captures.noFont)).toFixed(2)}×)`);
} finally {
  await server.stop();
}
process.exit(0);
