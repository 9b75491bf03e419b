import { escapeHtml } from "../lib/html";
import { catalogueFor, directionOf, fill, translator } from "../lib/i18n/messages";
import type { UnsubscribeLink } from "./service";

/**
 * The pages of an unsubscribe link. The confirmation page only asks (a mail scanner that
 * follows links must not unsubscribe anyone); its button POSTs to the same URL, as a
 * mail client's one-click unsubscribe does (RFC 8058).
 */
function page(locale: string, title: string, body: string): string {
  return `<!doctype html><html lang="${escapeHtml(locale)}" dir="${directionOf(locale)}" data-theme="builtin" data-timezone="UTC"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>html,body{margin:0;background:#f4f6fb;color:#334155;font:15px/1.5 system-ui,sans-serif}body{padding:48px 16px}
main{max-width:440px;margin:0 auto;padding:24px 28px;background:#fff;border:1px solid #e5e9f2;border-radius:12px;text-align:center;overflow-wrap:anywhere}
h1{font-size:17px;margin:0 0 8px}p{margin:0 0 16px}button{font:inherit;font-weight:600;padding:10px 18px;border:0;border-radius:8px;background:#4338ca;color:#fff;cursor:pointer}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

export function confirmationPage(link: UnsubscribeLink): string {
  if (link.unsubscribed) return donePage(link);
  const t = translator(link.locale);
  const email = `<strong>${escapeHtml(link.email)}</strong>`;
  return page(
    link.locale,
    t("unsubscribe.ask_title"),
    `<p>${fill(escapeHtml(catalogueFor(link.locale)["unsubscribe.ask"]), { rule: escapeHtml(link.rule), email })}</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${escapeHtml(t("unsubscribe.button"))}</button></form>`,
  );
}

export function donePage(link: UnsubscribeLink): string {
  const t = translator(link.locale);
  const email = `<strong>${escapeHtml(link.email)}</strong>`;
  return page(
    link.locale,
    t("unsubscribe.done_title"),
    `<p>${fill(escapeHtml(catalogueFor(link.locale)["unsubscribe.done"]), { email, rule: escapeHtml(link.rule) })}</p>`,
  );
}

/** An unknown link has no rule to speak of: English. */
export function unknownLinkPage(): string {
  const t = translator("en-US");
  return page("en-US", t("unsubscribe.unknown_title"), `<p>${escapeHtml(t("unsubscribe.unknown"))}</p>`);
}
