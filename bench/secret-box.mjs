#!/usr/bin/env node
// `npm run bench:secret-box`: what a ClickHouse data source's stored password costs each
// request (docs/clickhouse.md, "Cost"). A render opens it once per ClickHouse source
// (src/data/sources/clickhouse.ts): the stored URL checked again, the sealed password opened
// with AES-256-GCM under DATA_SOURCE_KEY (src/lib/secret-box.ts, the key imported once per
// isolate). Timed in process on Node's WebCrypto (inside workerd the clock does not advance
// while code computes), against floors measured in the same run, taking turns:
//   - the floor: crypto.subtle.decrypt of the same sealed bytes with a key imported beforehand
//     (what any AES-GCM opening costs);
//   - importing the key on every request instead (what the per-isolate cache saves);
//   - sealing (an administrator's create or update, not a render).
// Usage: npm run bench:secret-box [-- --runs 2000]
import { randomBytes } from "node:crypto";
import { importBundled, interleave, median, numberArg, ratio, timed } from "./lib/harness.mjs";

const runs = numberArg("runs", 2000);
const { openConnection, connectionToStore, seal } = await importBundled("bench/secret-box-entry.ts");

const key = randomBytes(32).toString("base64");
const env = { DATA_SOURCE_KEY: key, ENVIRONMENT: "production" };
const password = randomBytes(24).toString("base64url");
const stored = await connectionToStore(env, {
  url: "https://abc123.eu-central-1.aws.clickhouse.cloud:8443",
  database: "events",
  user: "dashboards_reader",
  password,
});
if (!stored.password?.startsWith("v1.")) throw new Error(`the connection was not stored: ${JSON.stringify(stored)}`);

// The floor: the same sealed bytes, the key imported once outside the measurement.
const purpose = new TextEncoder().encode("data-source-secret");
const [, nonce, body] = stored.password.split(".");
const fromBase64Url = (text) => Buffer.from(text, "base64url");
const iv = fromBase64Url(nonce);
const data = fromBase64Url(body);
const rawKey = Buffer.from(key, "base64");
const importKey = () => crypto.subtle.importKey("raw", rawKey, { name: "AES-GCM" }, false, ["decrypt"]);
const preImported = await importKey();
const decrypt = async (cryptoKey) =>
  new TextDecoder().decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: purpose }, cryptoKey, data));

const check = (opened) => {
  if (opened !== password) throw new Error("the password did not open to what was sealed");
};
const measured = await interleave(
  runs,
  {
    request: async () => {
      const { ms, value } = await timed(() => openConnection(env, stored));
      check(value.password);
      return ms;
    },
    floor: async () => {
      const { ms, value } = await timed(() => decrypt(preImported));
      check(value);
      return ms;
    },
    reimport: async () => {
      const { ms, value } = await timed(async () => decrypt(await importKey()));
      check(value);
      return ms;
    },
    seal: async () => (await timed(() => seal(key, password))).ms,
  },
  { warmup: 200 },
);

const ms = Object.fromEntries(Object.entries(measured).map(([name, values]) => [name, median(values)]));
const p99 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)];
console.log(`\nA ClickHouse data source's password per request: median of ${runs} (turns taken), Node ${process.version}`);
console.log(
  `  per request (url checked, password opened, key cached per isolate): ${ms.request.toFixed(3)} ms (p99 ${p99(measured.request).toFixed(3)} ms); goal < 1 ms: ${ms.request < 1 ? "met" : "NOT met"}`,
);
console.log(
  `  floor (crypto.subtle.decrypt, key imported beforehand): ${ms.floor.toFixed(3)} ms; per request ${ratio(ms.request, ms.floor)}× the floor`,
);
console.log(
  `  the key imported on every request instead: ${ms.reimport.toFixed(3)} ms (the cache saves ${(ms.reimport - ms.floor).toFixed(3)} ms)`,
);
console.log(`  sealing (create or update of the source, not a render): ${ms.seal.toFixed(3)} ms`);
