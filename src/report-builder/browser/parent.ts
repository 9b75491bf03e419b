/**
 * The builder page and its parent (`<report-builder>` in embed.js): `{source: "report-builder", type}`
 * messages — `ready` / `height` (with `status` and `height`), `error` (`status`), `saved`
 * (`id`, `name`), `click` (`column`, `value`, `row`: a bar or row of a grouped result was clicked) — and, from the parent, `{type: "token", token}` with a fresh token.
 */

import { fromHost, postToHost } from "../../http/browser/host-origins";

const SOURCE = "report-builder";
const framed = window.parent !== window;

/** The page's status (`data-status`): an error page (401, 404, 429) only reports it. */
export const pageStatus = Number(document.body.getAttribute("data-status") || 200);

let lastHeight = -1;
let readySent = false;

export type ParentMessage =
  | { type: "ready" | "height"; status: number; height: number; background?: string }
  | { type: "error"; status: number }
  | { type: "saved"; id: string; name: string }
  | { type: "click"; column: string; value: unknown; row: Record<string, unknown> };

export function post(message: ParentMessage): void {
  // To the page's host only (its frame-ancestors): saved reports and clicked rows are the customer's.
  if (framed) postToHost({ source: SOURCE, ...message });
}

function pageHeight(): number {
  return Math.ceil(document.documentElement.getBoundingClientRect().height);
}

function postHeight(type: "ready" | "height"): void {
  const h = pageHeight();
  if (type === "height" && h === lastHeight) return;
  lastHeight = h;
  // `ready` carries the page's background (its theme's): `<report-builder>` gives it to its iframe.
  post({
    type,
    status: pageStatus,
    height: h,
    ...(type === "ready" ? { background: getComputedStyle(document.documentElement).backgroundColor } : {}),
  });
}

/** Once the first result (or problem) is shown: the parent learns the page's status and height, then every change of height. */
export function ready(): void {
  if (readySent) return;
  readySent = true;
  postHeight("ready");
  if (typeof ResizeObserver === "function") new ResizeObserver(() => postHeight("height")).observe(document.documentElement);
}

/** Calls `take` with each fresh token the parent hands over. */
export function onFreshToken(take: (token: string) => void): void {
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!fromHost(event) || !data || data.source !== SOURCE || data.type !== "token" || typeof data.token !== "string") return;
    take(data.token);
  });
}
