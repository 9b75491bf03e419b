import type { AppContext } from "./context";
import FRAME_SCRIPT from "#browser/frame.js";
import { config } from "../config";
import { html, renderPage, type Script } from "../view/page-shell";
import { BUILTIN_PRESENTATION } from "../view/presentation";

/**
 * HTML pages the service serves to browsers (embed, share, their error pages): one set of
 * security headers and the one inline script they may run, the frame script
 * (src/http/browser/frame.ts: height and token messages for `<dashboard-embed>`), allowed by
 * its CSP hash, so the page still runs nothing else and loads nothing from anywhere.
 */
export const FRAME_SCRIPT_INLINE: Script = { inline: FRAME_SCRIPT };

/** Kept as values, not promises: a request awaits only promises it made itself. */
const scriptHashes = new Map<string, string>();

/**
 * `'sha256-…'` of an inline script, for a page's `script-src`: the hash of exactly the text
 * between its `<script>` tags (a built script, as served). Computed once per isolate.
 */
export async function inlineScriptHash(script: string): Promise<string> {
  let hash = scriptHashes.get(script);
  if (hash === undefined) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script));
    hash = `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
    scriptHashes.set(script, hash);
  }
  return hash;
}

/**
 * An embed or share page may be framed only by `frameAncestors` (the vendor's pages), runs
 * only the frame script, submits forms only to this service, and loads nothing else. A page
 * with a script of its own (the report builder) names that script's URL instead, and may
 * call this service (`connect-src 'self'`) but submit no form.
 */
export async function pageSecurityHeaders(
  c: AppContext,
  frameAncestors?: string,
  script?: { src: string } | { hash: string },
): Promise<void> {
  const ancestors = frameAncestors?.trim() || config(c.env).FRAME_ANCESTORS;
  // A live embed page's own control (Subscribe) runs one more inline script, by its hash, and calls this service.
  const scripts =
    script && "src" in script
      ? `script-src ${script.src}; connect-src 'self'; form-action 'none'`
      : script
        ? `script-src ${await inlineScriptHash(FRAME_SCRIPT)} ${script.hash}; connect-src 'self'; form-action 'self'`
        : `script-src ${await inlineScriptHash(FRAME_SCRIPT)}; form-action 'self'`;
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; ${scripts}; base-uri 'none'; frame-ancestors ${ancestors}`,
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
}

/**
 * A page that is not a dashboard (401, 404, 422 …). It never carries
 * `data-render-complete`, so a capture waiting for that mark cannot take it for a
 * dashboard; `data-status` tells the embedding element what went wrong (through the frame
 * script, or the page's own `script` that reads it: the report builder's).
 */
export function errorPage(title: string, text: string, status: number, script: Script = FRAME_SCRIPT_INLINE): string {
  return renderPage({
    // A page whose view is not known (an error page, a refused token): the built-in presentation.
    root: BUILTIN_PRESENTATION,
    title,
    style: ERROR_STYLE,
    bodyAttributes: { "data-status": status },
    body: html`<div><h1>${title}</h1><p>${text}</p></div>`,
    scripts: [script],
  });
}

const ERROR_STYLE = `html,body{margin:0;background:#f4f6fb;color:#334155;font:15px/1.5 system-ui,sans-serif}body{padding:48px 16px}
div{max-width:420px;margin:0 auto;padding:24px 28px;background:#fff;border:1px solid #e5e9f2;border-radius:12px;text-align:center;overflow-wrap:anywhere}h1{font-size:17px;margin:0 0 6px}p{margin:0}`;
