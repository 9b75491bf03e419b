import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

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

/** Adds the local secrets that are missing, generating random ones; never overwrites. */
export function ensureDevVars(path) {
  const vars = readDevVars(path);
  const wanted = {
    ADMIN_TOKEN: () => randomBytes(32).toString("hex"),
    DEV_API_TOKEN: () => `cdk_${randomBytes(32).toString("hex")}`,
    CUSTOMER_TOKEN_SECRET: () => randomBytes(32).toString("hex"),
    EMBED_TOKEN_SECRET: () => randomBytes(32).toString("hex"),
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
