import EMBED_ELEMENT from "#browser/embed-element.js";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { declaredRoute } from "../http/openapi";
import { EMBED_SCRIPT_VERSION } from "./embed-version";

// The embed script (src/dashboards/browser/embed-script.ts, built by scripts/build-browser.mjs):
// `/embed.js` with this service's origin written in (cached 5 minutes, so a deploy reaches every
// host soon), and `/embed/v<major>.<minor>.js`, the built bytes themselves (the origin is the one
// the script element loaded it from), the same on every deployment: immutable, pinned by an SRI
// hash, listed with it by `/embed/versions.json` (docs/embedding.md section 4).

const tags = ["Embedding"];

/** `embed.js`: the elements with this service's origin written over their placeholder. */
function embedScript(origin: string): string {
  return EMBED_ELEMENT.replaceAll(JSON.stringify("__EMBED_SERVICE_ORIGIN__"), JSON.stringify(origin));
}

/** The versioned script's path. */
const VERSIONED_PATH = `/embed/${EMBED_SCRIPT_VERSION}.js`;

let integrity: Promise<string> | undefined;
/** `sha384-…` of the versioned script's bytes (what a host's `integrity` attribute names). */
export function embedScriptIntegrity(): Promise<string> {
  integrity ??= crypto.subtle.digest("SHA-384", new TextEncoder().encode(EMBED_ELEMENT)).then((digest) => {
    let binary = "";
    for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
    return `sha384-${btoa(binary)}`;
  });
  return integrity;
}

const javascript = { content: { "application/javascript": { schema: z.string() } } };

const embedJs = declaredRoute({
  access: "public",
  method: "get",
  path: "/embed.js",
  operationId: "embedScript",
  tags,
  summary: "The `<dashboard-embed>` and `<report-builder>` web components",
  description:
    "Attributes: `embed-id`, `token` or `token-url` (or legacy `customer-token`), `environment`, `variables` (JSON), `height` (fixed; default: follows the content). " +
    "Events: `dashboard-load` (`detail.height`), `dashboard-error` (`detail.status`), `dashboard-click`, `dashboard-variables`, `dashboard-navigate`. " +
    "Cached 5 minutes; to pin a version with an SRI hash, load `/embed/v<major>.<minor>.js` (see `/embed/versions.json`).",
  responses: { 200: { description: "JavaScript", ...javascript } },
});

const versionedJs = declaredRoute({
  access: "public",
  method: "get",
  path: VERSIONED_PATH,
  operationId: "embedScriptVersioned",
  tags,
  summary: `The embed script, version ${EMBED_SCRIPT_VERSION} (immutable)`,
  description:
    "The same elements as `/embed.js`, byte for byte the same on every deployment (the service's origin is taken from the script's own URL), " +
    'so it can be pinned with `integrity` (its hash is in `/embed/versions.json`; load it with `crossorigin="anonymous"`). ' +
    "`Cache-Control: public, max-age=31536000, immutable`.",
  responses: { 200: { description: "JavaScript", ...javascript } },
});

const versionsJson = declaredRoute({
  access: "public",
  method: "get",
  path: "/embed/versions.json",
  operationId: "embedScriptVersions",
  tags,
  summary: "The versioned embed scripts and their SRI hashes",
  description: "Public. `latest` names the newest version; each script has its `url` and its `integrity` (`sha384-…` of the served bytes).",
  responses: {
    200: {
      description: "The versions.",
      content: {
        "application/json": {
          schema: z
            .object({
              latest: z.string().openapi({ example: EMBED_SCRIPT_VERSION }),
              scripts: z.record(z.string(), z.object({ url: z.string(), integrity: z.string() })),
            })
            .openapi("EmbedScriptVersions"),
        },
      },
    },
  },
});

/** Registered before the embed page (`/embed/{embedId}`), whose path the versioned ones would match (an embed id has no dot). */
export function registerEmbedScriptRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(versionedJs, (c) => {
    c.header("Content-Type", "application/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    // An `integrity` check of a script from another origin needs CORS (`crossorigin="anonymous"`).
    c.header("Access-Control-Allow-Origin", "*");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(EMBED_ELEMENT, 200);
  });

  app.openapi(versionsJson, async (c) => {
    c.header("Cache-Control", "public, max-age=300");
    c.header("Access-Control-Allow-Origin", "*");
    const url = `${new URL(c.req.url).origin}${VERSIONED_PATH}`;
    return c.json(
      { latest: EMBED_SCRIPT_VERSION, scripts: { [EMBED_SCRIPT_VERSION]: { url, integrity: await embedScriptIntegrity() } } },
      200,
    );
  });

  app.openapi(embedJs, (c) => {
    c.header("Content-Type", "application/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=300");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(embedScript(new URL(c.req.url).origin), 200);
  });
}
