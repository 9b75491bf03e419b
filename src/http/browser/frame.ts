/**
 * The frame script: the one inline script of the embed and share pages and their error pages
 * (src/http/pages.ts), allowed by its CSP hash, so the page still runs nothing else and loads
 * nothing from anywhere.
 *
 * It lets `<dashboard-embed>` size its iframe and hand over fresh signed tokens: it posts, to
 * the host origins only (host-origins.ts),
 * `{source: "dashboard-embed", type: "ready" | "height", status, height}` (`ready` once the
 * page's fonts are ready, also with the page's computed `background`, its theme's, which the
 * element gives its iframe, and the `dashboard` it shows) to the parent
 * window and accepts `{type: "token", token}` from it, rewriting the `token` of the page's
 * own links and forms. Opened on its own (not framed), a page drawn without a width
 * (`data-fit-window`: a share link on a phone) asks once more with its window's width, so its
 * charts are drawn for that screen (not when both widths draw the same page:
 * `data-fit-window` is the width from which all do).
 */

import { readDate } from "../../view/date-field";
import { fromHost, postToHost } from "./host-origins";
import { pageDashboard, tokenFitsPage } from "./token-dashboard";

/** A page opened on its own: drawn for the window's width when it was drawn for another. */
function fitWindow(): void {
  const main = document.querySelector("main[data-fit-window]");
  if (!main) return;
  // The service clamps the width it is sent (dashboards/layout.ts pageWidth).
  const width = Math.round(window.innerWidth);
  const drawn = Number(main.getAttribute("data-width"));
  const widest = Number(main.getAttribute("data-fit-window"));
  if (Math.abs(width - drawn) <= 16 || (width >= widest && drawn >= widest)) return;
  const url = new URL(window.location.href);
  url.searchParams.set("width", String(width));
  window.location.replace(url.toString());
}

/**
 * How long `ready` waits for the page's fonts at most: a font that never arrives must not keep
 * the host from hearing of the page (the text is shown in a fallback font meanwhile: `font-display: swap`).
 */
const FONTS_WAIT_MS = 3000;

/**
 * A framed page: tells `<dashboard-embed>` its status and height (`ready` once its fonts are
 * ready, so the host's `dashboard-load` never meets invisible text or a height still to change),
 * and takes fresh tokens from it. A page a drill-through opened has a Back control
 * (`[data-drill-back]`): it asks the element, which shows its own dashboard again, or, in a
 * frame no element answers for, goes back in the frame's history.
 */
function talkToParent(): void {
  const status = Number(document.body.getAttribute("data-status") || 200);
  let last = -1;
  let element = false;
  const height = () => Math.ceil(document.documentElement.getBoundingClientRect().height);
  const post = (type: "ready" | "height") => {
    const h = height();
    if (type === "height" && h === last) return;
    last = h;
    const ready =
      type === "ready" ? { background: getComputedStyle(document.documentElement).backgroundColor, dashboard: pageDashboard() } : {};
    postToHost({ source: "dashboard-embed", type, status, height: h, ...ready });
  };
  // The height at once (laid out: the faces the text uses start loading), `ready` once they are in.
  post("height");
  const fontsIn = document.fonts ? document.fonts.ready : Promise.resolve();
  Promise.race([fontsIn, new Promise((resolve) => setTimeout(resolve, FONTS_WAIT_MS))]).then(() => post("ready"));
  if (typeof ResizeObserver === "function") new ResizeObserver(() => post("height")).observe(document.documentElement);
  document.querySelector("[data-drill-back]")?.addEventListener("click", () => {
    if (element) postToHost({ source: "dashboard-embed", type: "back" });
    else window.history.back();
  });
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!fromHost(event) || !data || data.source !== "dashboard-embed") return;
    if (data.type === "host") element = true;
    if (data.type !== "token" || typeof data.token !== "string" || !tokenFitsPage(data.token)) return;
    for (const link of document.querySelectorAll<HTMLAnchorElement>("a[data-embed-link]")) {
      const url = new URL(link.href);
      if (url.searchParams.has("token")) {
        url.searchParams.set("token", data.token);
        link.href = url.toString();
      }
    }
    for (const input of document.querySelectorAll<HTMLInputElement>("input[name=token]")) input.value = data.token;
  });
}

/**
 * The filter form's date fields (src/dashboards/render.ts): a text field in the locale's format
 * (`data-date-of`) and the hidden ISO field of that name the form submits. What is typed is read
 * in the locale's order; what is no date yet is marked invalid and leaves the ISO value as it was.
 */
function localDateFields(): void {
  const locale = document.documentElement.lang || "en-US";
  for (const field of document.querySelectorAll<HTMLInputElement>("input[data-date-of]")) {
    const name = field.getAttribute("data-date-of");
    const iso = field.form?.querySelector<HTMLInputElement>(`input[type=hidden][name="${name}"]`);
    if (!iso) continue;
    field.addEventListener("input", () => {
      const read = field.value.trim() === "" ? "" : readDate(field.value, locale);
      if (read === null) field.setAttribute("aria-invalid", "true");
      else {
        field.removeAttribute("aria-invalid");
        iso.value = read;
      }
    });
  }
}

localDateFields();
if (window.parent === window) fitWindow();
else talkToParent();
