import { env, runInDurableObject } from "cloudflare:test";
import puppeteer from "@cloudflare/puppeteer";
import { describe, expect, it } from "vitest";
import { capture, type CaptureStation, captureStationName } from "../../../src/delivery/run/capture-station";
import { JobFailure } from "../../../src/delivery/job-state";
import { isPng, pngWidth } from "../../helpers/delivery";

const bindings = env as unknown as { BROWSER: Fetcher; CAPTURE_STATION: DurableObjectNamespace<CaptureStation> };
const page = (text: string) =>
  `<!doctype html><body data-render-complete="true"><main class="dashboard"><section class="panel panel-text">${text}</section></main></body>`;
const station = () => bindings.CAPTURE_STATION.get(bindings.CAPTURE_STATION.idFromName(captureStationName(0)));
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

  it("fails a capture whose browser stops answering at the capture's deadline (retried), and gives the next capture a new browser", async () => {
    await capture(env as never, page("before"), { width: 500, scale: 1, format: "png" });
    const before = await held();
    // A page that never lets its tab answer again: the load message gets no reply.
    const frozen = `<!doctype html><body><main class="dashboard"><script>for (;;) {}</script></main></body>`;
    const started = Date.now();
    const failure = await capture(env as never, frozen, { width: 500, scale: 1, format: "png", deadline: started + 2_000 }).catch((e) => e);
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure).toMatchObject({ reason: "render_failed", final: false });
    expect(failure.detail).toContain("did not come within the capture's deadline");
    expect(Date.now() - started).toBeLessThan(4_000);
    const after = await capture(env as never, page("after"), { width: 500, scale: 1, format: "png" });
    expect(isPng(after.bytes)).toBe(true);
    expect((await held()).session).not.toBe(before.session); // the session that stopped answering is not used again
  });

  it("answers a call that gets no turn before its deadline at once, with a retryable failure", async () => {
    const slow = `<!doctype html><body><main class="dashboard"><section class="panel">…</section></main></body>`;
    // The first call holds the tab for its whole wait (a page that never marks itself complete).
    const holding = capture(env as never, slow, { width: 500, scale: 1, format: "png", timeoutMs: 1_500 }).catch((e) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const queued = await capture(env as never, page("late"), { width: 500, scale: 1, format: "png", deadline: started + 500 }).catch(
      (e) => e,
    );
    expect(queued).toMatchObject({
      reason: "render_failed",
      final: false,
      detail: "no turn at the capture station before the capture's deadline",
    });
    expect(Date.now() - started).toBeLessThan(1_200);
    expect(await holding).toMatchObject({ reason: "incomplete_capture" });
    // Its turn given up, the next call is served as usual.
    expect(isPng((await capture(env as never, page("next"), { width: 500, scale: 1, format: "png" })).bytes)).toBe(true);
  });

  it("serves calls waiting in line one after the other, first come first served", async () => {
    const finished: number[] = [];
    const calls = [0, 1, 2, 3].map((n) =>
      capture(env as never, page(`call ${n}`), { width: 400 + n * 10, scale: 1, format: "png" }).then((shot) => {
        finished.push(n);
        return shot;
      }),
    );
    const shots = await Promise.all(calls);
    expect(shots.map((shot) => pngWidth(shot.bytes))).toEqual([400, 410, 420, 430]);
    expect(finished).toEqual([0, 1, 2, 3]);
    // The line is empty and the tab free again: the next call is served at once.
    const inside = await runInDurableObject(station(), async (instance) => {
      const state = instance as unknown as { line: unknown[]; busy: boolean };
      return { waiting: state.line.length, busy: state.busy };
    });
    expect(inside).toEqual({ waiting: 0, busy: false });
  });
});
