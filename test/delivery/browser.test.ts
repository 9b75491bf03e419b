import { env, runInDurableObject } from "cloudflare:test";
import puppeteer from "@cloudflare/puppeteer";
import { describe, expect, it } from "vitest";
import { capture, type CaptureStation } from "../../src/delivery/browser";
import { isPng, pngWidth } from "./helpers";

const bindings = env as unknown as { BROWSER: Fetcher; CAPTURE_STATION: DurableObjectNamespace<CaptureStation> };
const page = (text: string) => `<!doctype html><body data-render-complete="true"><main class="dashboard"><section class="panel panel-text">${text}</section></main></body>`;
const station = () => bindings.CAPTURE_STATION.get(bindings.CAPTURE_STATION.idFromName("station-0"));
/** The station's session and its tab's target, as the station holds them. */
const held = () =>
  runInDurableObject(station(), async (instance) => {
    const inside = instance as unknown as { sessionId: string; tab: { page: { target(): { _targetId: string } } } };
    return { session: inside.sessionId, tab: inside.tab.page.target()._targetId };
  });

describe("the capture station", () => {
  it("keeps one connection and one warm tab across captures", async () => {
    const first = await capture(env as never, page("one"), { width: 500, scale: 1, format: "png" });
    const before = await held();
    const second = await capture(env as never, page("two"), { width: 640, scale: 2, format: "png" });
    expect(isPng(first.bytes) && isPng(second.bytes)).toBe(true);
    expect([pngWidth(first.bytes), pngWidth(second.bytes)]).toEqual([500, 1280]);
    const after = await held();
    expect(after.session && after.tab).toBeTruthy();
    expect(after).toEqual(before); // the same session, the same tab: nothing connected in between
    expect((await puppeteer.sessions(bindings.BROWSER)).find((s) => s.sessionId === after.session)?.connectionId).toBeTruthy();
  });

  it("connects afresh when its browser went away, and the capture still succeeds", async () => {
    await capture(env as never, page("before"), { width: 500, scale: 1, format: "png" });
    const before = await held();
    await runInDurableObject(station(), async (instance) => {
      await (instance as unknown as { browser: { close(): Promise<void> } }).browser.close();
    });
    const after = await capture(env as never, page("after"), { width: 500, scale: 1, format: "pdf" });
    expect(new TextDecoder().decode(after.bytes.slice(0, 5))).toBe("%PDF-");
    expect(after.contentType).toBe("application/pdf");
    expect((await held()).session).not.toBe(before.session); // its old session was closed: a new one
  });
});
