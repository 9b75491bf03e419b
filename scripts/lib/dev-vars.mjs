import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";

/** Reads KEY=VALUE lines of a .dev.vars file. */
export function readDevVars(path) {
  if (!existsSync(path)) return {};
  const vars = {};
  for (const line of readFileSync(path, "utf8").split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"?(.*?)"?\s*$/.exec(line);
    if (match) vars[match[1]] = match[2];
  }
  return vars;
}

/**
 * Adds the local secrets that are missing, generating random ones; never overwrites. Several
 * `npm start`s of a fresh checkout (the e2e tests start them side by side) may get here at
 * once: under a lock file, so all of them end with the same secrets instead of the last
 * writer's (a server whose .dev.vars changed under it answered 401 to its own banner's token).
 */
export function ensureDevVars(path) {
  const lock = `${path}.lock`;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      // A lock older than 10 s belongs to a process that died holding it.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 10_000) rmSync(lock, { force: true });
      } catch {}
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
  try {
    return addMissingDevVars(path);
  } finally {
    rmSync(lock, { force: true });
  }
}

function addMissingDevVars(path) {
  const vars = readDevVars(path);
  const wanted = {
    ADMIN_TOKEN: () => randomBytes(32).toString("hex"),
    DEV_API_TOKEN: () => `cdk_${randomBytes(32).toString("hex")}`,
    CUSTOMER_TOKEN_SECRET: () => randomBytes(32).toString("hex"),
    EMBED_TOKEN_SECRET: () => randomBytes(32).toString("hex"),
    // Seals ClickHouse data sources' passwords (src/lib/secret-box.ts): 32 bytes, base64.
    DATA_SOURCE_KEY: () => randomBytes(32).toString("base64"),
  };
  const added = [];
  for (const [name, make] of Object.entries(wanted)) {
    if (!vars[name]) {
      vars[name] = make();
      added.push(`${name}="${vars[name]}"`);
    }
  }
  if (added.length > 0) {
    const before = existsSync(path) ? readFileSync(path, "utf8") : "# Local secrets for `npm start` (never commit this file).\n";
    writeFileSync(path, `${before.replace(/\n?$/, "\n")}${added.join("\n")}\n`, { mode: 0o600 });
  }
  return vars;
}
