import { catalogueFor, directionOf, translator } from "../view/messages";
import type { UnsubscribeLink } from "./service";
import { BUILTIN_PRESENTATION, type Presentation } from "../view/presentation";
import { BUILTIN_THEME_CSS, logoImg, presentationCss } from "../view/style";
import { fillMarkup, type Html, html, renderPage } from "../view/page-shell";

/**
 * The pages of an unsubscribe link. The confirmation page only asks (a mail scanner that
 * follows links must not unsubscribe anyone); its button POSTs to the same URL, as a
 * mail client's one-click unsubscribe does (RFC 8058).
 */
function page(locale: string, title: string, body: Html, theme: UnsubscribeLink["theme"]): string {
  // The rule's theme (its colors, font and logo), else the built-in one; the time zone plays no part here.
  const view: Presentation = { ...BUILTIN_PRESENTATION, theme: theme ?? null, locale, dir: directionOf(locale) };
  return renderPage({
    root: view,
    title,
    style: `${BUILTIN_THEME_CSS}${STYLE}${presentationCss(view, "swap")}`,
    body: html`<main>${logoImg(view)}<h1>${title}</h1>${body}</main>`,
  });
}

const STYLE = `html,body{margin:0;background:var(--cd-bg);color:var(--cd-text);font:15px/1.5 var(--cd-font)}body{padding:48px 16px}
main{max-width:440px;margin:0 auto;padding:24px 28px;background:var(--cd-surface);border:1px solid var(--cd-border);border-radius:var(--cd-radius);text-align:center;overflow-wrap:anywhere}
.cd-logo{display:block;margin:0 auto 12px}h1{font-size:17px;margin:0 0 8px}p{margin:0 0 16px}button{font:inherit;font-weight:600;padding:10px 18px;border:0;border-radius:8px;background:var(--cd-accent);color:var(--cd-on-accent);cursor:pointer}`;

export function confirmationPage(link: UnsubscribeLink): string {
  if (link.unsubscribed) return donePage(link);
  const t = translator(link.locale);
  const email = html`<strong>${link.email}</strong>`;
  return page(
    link.locale,
    t("unsubscribe.ask_title"),
    html`<p>${fillMarkup(catalogueFor(link.locale)["unsubscribe.ask"], { rule: link.rule, email })}</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${t("unsubscribe.button")}</button></form>`,
    link.theme,
  );
}

export function donePage(link: UnsubscribeLink): string {
  const t = translator(link.locale);
  const email = html`<strong>${link.email}</strong>`;
  return page(
    link.locale,
    t("unsubscribe.done_title"),
    html`<p>${fillMarkup(catalogueFor(link.locale)["unsubscribe.done"], { email, rule: link.rule })}</p>`,
    link.theme,
  );
}

/** An unknown link has no rule to speak of: English. */
export function unknownLinkPage(): string {
  const t = translator("en-US");
  return page("en-US", t("unsubscribe.unknown_title"), html`<p>${t("unsubscribe.unknown")}</p>`, null);
}
