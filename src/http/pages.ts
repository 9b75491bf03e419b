import { escapeHtml } from "../lib/html";
import type { AppContext } from "./context";
import { config } from "../config";

/**
 * HTML pages the service serves to browsers (embed, share, their error pages): one set of
 * security headers and the one inline script they may run.
 *
 * The frame script is what lets `<dashboard-embed>` size its iframe and hand over fresh
 * signed tokens: it posts `{source: "dashboard-embed", type: "ready" | "height", status,
 * height}` to the parent window and accepts `{type: "token", token}` from it, rewriting the
 * `token` of the page's own links and forms. Opened on its own (not framed), a page drawn
 * without a width (`data-fit-window`: a share link on a phone) asks once more with its
 * window's width, so its charts are drawn for that screen (not when both widths draw the
 * same page: `data-fit-window` is the width from which all do). It is allowed by its CSP hash,
 * so the page still runs nothing else and loads nothing from anywhere.
 */
export const FRAME_SCRIPT = `(function () {
  if (window.parent === window) {
    var main = document.querySelector("main[data-fit-window]");
    if (!main) return;
    // The service clamps the width it is sent (dashboards/layout.ts pageWidth).
    var width = Math.round(window.innerWidth);
    var drawn = Number(main.getAttribute("data-width"));
    var widest = Number(main.getAttribute("data-fit-window"));
    if (Math.abs(width - drawn) <= 16 || (width >= widest && drawn >= widest)) return;
    var url = new URL(window.location.href);
    url.searchParams.set("width", String(width));
    window.location.replace(url.toString());
    return;
  }
  var body = document.body;
  var status = Number(body.getAttribute("data-status") || 200);
  var last = -1;
  function height() { return Math.ceil(document.documentElement.getBoundingClientRect().height); }
  function post(type) {
    var h = height();
    if (type === "height" && h === last) return;
    last = h;
    window.parent.postMessage({ source: "dashboard-embed", type: type, status: status, height: h }, "*");
  }
  post("ready");
  if (typeof ResizeObserver === "function") new ResizeObserver(function () { post("height"); }).observe(document.documentElement);
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (event.source !== window.parent || !data || data.source !== "dashboard-embed" || data.type !== "token" || typeof data.token !== "string") return;
    document.querySelectorAll("a[data-embed-link]").forEach(function (link) {
      var url = new URL(link.href);
      if (url.searchParams.has("token")) { url.searchParams.set("token", data.token); link.href = url.toString(); }
    });
    document.querySelectorAll("input[name=token]").forEach(function (input) { input.value = data.token; });
  });
})();`;

/** Kept as a value, not a promise: a request awaits only promises it made itself. */
let scriptHash: string | undefined;

/** `'sha256-…'` of FRAME_SCRIPT, for the pages' `script-src`. */
export async function frameScriptHash(): Promise<string> {
  if (scriptHash === undefined) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(FRAME_SCRIPT));
    scriptHash = `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
  }
  return scriptHash;
}

export const frameScriptTag = `<script>${FRAME_SCRIPT}</script>`;

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
        ? `script-src ${await frameScriptHash()} ${script.hash}; connect-src 'self'; form-action 'self'`
        : `script-src ${await frameScriptHash()}; form-action 'self'`;
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; ${scripts}; base-uri 'none'; frame-ancestors ${ancestors}`,
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
export function errorPage(title: string, text: string, status: number, script = frameScriptTag): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>html,body{margin:0;background:#f4f6fb;color:#334155;font:15px/1.5 system-ui,sans-serif}body{padding:48px 16px}
div{max-width:420px;margin:0 auto;padding:24px 28px;background:#fff;border:1px solid #e5e9f2;border-radius:12px;text-align:center;overflow-wrap:anywhere}h1{font-size:17px;margin:0 0 6px}p{margin:0}</style>
</head><body data-status="${status}"><div><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></div>${script}</body></html>`;
}
