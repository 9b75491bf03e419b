import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { withUnsubscribe } from "../../src/delivery/mail/messages";
import type { JobRequest } from "../../src/delivery/schemas";
import type { Env } from "../../src/env";
import { CATALOGUES } from "../../src/view/messages";
import { confirmationPage, donePage } from "../../src/unsubscribe/page";
import { subscribeControl } from "../../src/dashboards/subscribe-control";

// The e-mail footer and the unsubscribe page speak the schedule's locale.
const mail = { to: "ana@example.com", subject: "Report", text: "Hello", attachments: [] };
const request = (locale?: string) =>
  ({ unsubscribe: { scheduleId: "sch_1", base: "https://reports.example", ...(locale ? { locale } : {}) } }) as unknown as JobRequest;

describe("e-mail footer", () => {
  it("is in the schedule's locale, English without one (control)", async () => {
    const de = await withUnsubscribe(env as unknown as Env, request("de-DE"), mail);
    expect(de.html).toContain(CATALOGUES.de["mail.footer"]);
    expect(de.html).toContain(`>${CATALOGUES.de["mail.unsubscribe"]}</a>`);
    expect(de.text).toContain(`${CATALOGUES.de["mail.unsubscribe"]}: https://reports.example`);
    const en = await withUnsubscribe(env as unknown as Env, request(), mail);
    expect(en.html).toContain(CATALOGUES.en["mail.footer"]);
  });
});

describe("unsubscribe page", () => {
  it("asks and confirms in the link's locale; Arabic right to left", () => {
    const link = { email: "ana@example.com", rule: "x", unsubscribed: false, locale: "fr-FR" };
    const ask = confirmationPage(link);
    expect(ask).toContain('<html lang="fr-FR" dir="ltr"');
    expect(ask).toContain(`<h1>${CATALOGUES.fr["unsubscribe.ask_title"]}</h1>`);
    expect(ask).toContain(`>${CATALOGUES.fr["unsubscribe.button"]}</button>`);
    expect(ask).toContain("<strong>ana@example.com</strong>");
    const done = donePage({ ...link, locale: "ar-EG", unsubscribed: true });
    expect(done).toContain('<html lang="ar-EG" dir="rtl"');
    expect(done).toContain(CATALOGUES.ar["unsubscribe.done_title"]);
    // Control: English as before.
    expect(confirmationPage({ ...link, locale: "en-US" })).toContain("<h1>Unsubscribe?</h1>");
  });
});

describe("subscribe control", () => {
  it("speaks the page's locale, and hands its script the words it writes itself", () => {
    const html = subscribeControl("sales", "tok", "ana@example.com", "ja-JP");
    expect(html).toContain(`<summary>${CATALOGUES.ja["subscribe.open"]}</summary>`);
    expect(html).toContain(`<option value="daily">${CATALOGUES.ja["subscribe.daily"]}</option>`);
    expect(html).toContain(CATALOGUES.ja["subscribe.none"]); // in data-words, for the script
    // Control: English by default, as before.
    expect(subscribeControl("sales", "tok", "ana@example.com")).toContain(
      '<summary>Subscribe</summary><div class="box"><p>E-mail this dashboard to <strong>ana@example.com</strong></p>',
    );
  });
});
