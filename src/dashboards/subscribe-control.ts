import SUBSCRIBE_SCRIPT from "#browser/subscribe-control.js";
import { inlineScriptHash } from "../http/pages";
import { raw } from "hono/html";
import { catalogueFor, type MessageKey, translator } from "../view/messages";
import { fillMarkup, html, htmlString } from "../view/page-shell";

/** The words the control's script writes itself, handed to it as data (browser code imports no server file). */
const SCRIPT_WORDS: MessageKey[] = [
  "subscribe.describe_daily",
  "subscribe.describe_weekly",
  "subscribe.describe_monthly",
  "subscribe.cancel",
  "subscribe.cancelled",
  "subscribe.none",
  "subscribe.done",
];

/**
 * The "Subscribe" control of a live embed page (never drawn into captures or share links:
 * only the embed route adds it, and only for a signed token minted with `user_email`). Its
 * script (src/dashboards/browser/subscribe-control.ts) talks to this page's subscriptions API
 * with the page's own token (kept in an `input[name=token]`, so the frame script's token
 * refresh reaches it too) and the browser's time zone, and runs under the page's CSP by its
 * hash, like the frame script.
 */

/** `'sha256-…'` of the control's script, for the page's `script-src`. */
export function subscribeScriptHash(): Promise<string> {
  return inlineScriptHash(SUBSCRIBE_SCRIPT);
}

const hours = Array.from(
  { length: 24 },
  (_, h) => html`<option value="${h}"${h === 8 ? html` selected` : ""}>${String(h).padStart(2, "0")}:00</option>`,
);

const STYLE = `.subscribe{margin:12px 16px 0;font:14px/1.4 var(--cd-font);color:var(--cd-text)}.subscribe summary{cursor:pointer;display:inline-block;padding:6px 12px;border:1px solid var(--cd-accent);border-radius:8px;background:var(--cd-surface);color:var(--cd-text);font-weight:600}
.subscribe .box{margin-top:8px;padding:12px 14px;background:var(--cd-surface);border:1px solid var(--cd-border);border-radius:var(--cd-radius);max-width:520px}.subscribe form{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.subscribe select,.subscribe button{font:inherit;padding:5px 8px;border:1px solid var(--cd-border);border-radius:6px;background:var(--cd-surface);color:var(--cd-text)}.subscribe button[type=submit]{background:var(--cd-accent);border-color:var(--cd-accent);color:var(--cd-on-accent);font-weight:600}
.subscribe ul{list-style:none;margin:10px 0 0;padding:0}.subscribe li{display:flex;gap:8px;align-items:center;justify-content:space-between;padding:4px 0;border-top:1px solid var(--cd-border)}.subscribe li.none{color:var(--cd-muted)}.subscribe p{margin:0 0 8px;overflow-wrap:anywhere}`;

/** The control's markup (a closed `<details>` until the viewer opens it), placed into a live embed page's body. */
export function subscribeControl(embedId: string, token: string, email: string, locale = "en-US"): string {
  const t = translator(locale);
  const catalogue = catalogueFor(locale);
  const words = JSON.stringify(Object.fromEntries(SCRIPT_WORDS.map((key) => [key, catalogue[key]])));
  const to = fillMarkup(catalogue["subscribe.to"], { email: html`<strong>${email}</strong>` });
  // Raw, both: STYLE is a constant of ours with no `<`; SUBSCRIBE_SCRIPT the built bundle of
  // browser/subscribe-control.ts, exactly as built (the page's CSP hash is over this text).
  return htmlString(html`<details id="subscribe" class="subscribe" data-api="/embed/${encodeURIComponent(embedId)}/subscriptions" data-words="${words}">
<style>${raw(STYLE)}</style>
<summary>${t("subscribe.open")}</summary><div class="box"><p>${to}</p>
<form><input type="hidden" name="token" value="${token}"><select name="frequency" aria-label="${t("subscribe.how_often")}"><option value="daily">${t("subscribe.daily")}</option><option value="weekly">${t("subscribe.weekly")}</option><option value="monthly">${t("subscribe.monthly")}</option></select>
<select name="hour" aria-label="${t("subscribe.at")}">${hours}</select><span class="zone"></span><button type="submit">${t("subscribe.submit")}</button></form>
<ul aria-label="${t("subscribe.list")}"></ul><p role="status" aria-live="polite"></p></div></details>
<script>${raw(SUBSCRIBE_SCRIPT)}</script>`);
}
