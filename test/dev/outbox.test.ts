import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { outboxKeyTime, sendMail } from "../../src/delivery/mail/send";
import { bindings } from "../helpers/delivery";

async function page(path: string): Promise<{ status: number; html: string }> {
  const { exports } = await import("cloudflare:workers");
  const response = await (exports as any).default.fetch(new Request(`http://api.test${path}`));
  return { status: response.status, html: await response.text() };
}

const subjects = (html: string) => [...html.matchAll(/<a href="\/_dev\/outbox\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
const olderLink = (html: string) => html.match(/<a rel="next" href="([^"]+)">Older<\/a>/)?.[1]?.replace(/&amp;/g, "&");

describe("the local outbox (/_dev/outbox)", () => {
  it("lists the newest e-mail first and pages through a long history (more than 1,000 messages)", async () => {
    // 1,050 older messages, as a long-lived instance accumulates them …
    const past = Date.now() - 3_600_000;
    for (let start = 0; start < 1_050; start += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          bindings.FILES.put(`outbox/${outboxKeyTime(past + start + i)}-old${start + i}.eml`, "x", {
            customMetadata: { to: "old@x.example", subject: `old ${start + i}`, job_id: "old" },
          }),
        ),
      );
    }
    // … then two new ones, sent the way the service sends them.
    for (const subject of ["new one", "newest"]) {
      await sendMail(env as never, { to: "new@x.example", subject, text: "hi", attachments: [] }, "job_new");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const first = await page("/_dev/outbox");
    expect(first.status).toBe(200);
    const listed = subjects(first.html);
    expect(listed.slice(0, 3)).toEqual(["newest", "new one", "old 1049"]);
    expect(listed).toHaveLength(100);

    // Every message is reachable through the "Older" links, newest to oldest, each once.
    const all = [...listed];
    let next = olderLink(first.html);
    while (next) {
      const more = await page(next);
      all.push(...subjects(more.html));
      next = olderLink(more.html);
    }
    expect(all).toHaveLength(1_052);
    expect(all.at(-1)).toBe("old 0");
    expect(new Set(all).size).toBe(1_052);
  }, 60_000);

  it("answers a made-up cursor with the outbox page, not a server error (local R2 lists from the start)", async () => {
    const res = await page("/_dev/outbox?cursor=not-a-cursor");
    expect(res.status).toBe(200);
    expect(res.html).toContain("<h1>Local outbox</h1>");
  });
});
