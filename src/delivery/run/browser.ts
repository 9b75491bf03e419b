import { Buffer } from "node:buffer";
import { DurableObject } from "cloudflare:workers";
import puppeteer, { type Browser, type CDPSession, type Page } from "@cloudflare/puppeteer";
import CAPTURE_SCRIPT from "#browser/capture.js";
import { config } from "../../config";
import type { Env } from "../../env";
import { errorDetail } from "../../lib/log";
import { JobFailure, type FailureReason } from "../job-state";

export interface CaptureOptions {
  width: number;
  /** Device pixels per CSS pixel (1: the image is exactly `width` pixels wide). */
  scale: number;
  format: "png" | "jpeg" | "pdf";
  /** How long each wait for the page may take (default RENDER_TIMEOUT_MS), never past `deadline`. */
  timeoutMs?: number;
  /**
   * When (epoch ms) the capture must have answered, its turn at the station included
   * (default: CAPTURE_BUDGET_MS from the call). Past it the station gives up and says so,
   * and the caller stops waiting for the station: the attempt records its failure itself.
   */
  deadline?: number;
}

/** How long a page may take to load and mark itself rendered before the attempt fails. */
const RENDER_TIMEOUT_MS = 20_000;
/** What a page's wait leaves of the deadline for the screenshot or PDF itself. */
const SHOT_RESERVE_MS = 1_500;
/** A station idle this long lets go of its browser connection (the session itself stays warm for keep_alive). */
const IDLE_DISCONNECT_MS = 60_000;
/** A capture's time when its caller sets no deadline. */
export const CAPTURE_BUDGET_MS = 20_000;
/**
 * How long past the deadline the caller still waits for the station's answer. A station
 * answers by its deadline; one that does not (reset, or busy in a call that lost its browser)
 * is not waited for.
 */
const ANSWER_GRACE_MS = 2_000;
/**
 * How often a call waiting for the station's tab looks whether its turn has come: the next
 * in line often (the hand-over is latency), the others seldom (forty waiters would otherwise
 * cost the station thousands of wake-ups a second).
 */
const NEXT_LOOKS_MS = 5;
const OTHERS_LOOK_MS = 50;

export interface Capture {
  bytes: Uint8Array<ArrayBuffer>;
  contentType: "image/png" | "image/jpeg" | "application/pdf";
  /** Where the capture's time went inside the station (for the stage clock, run/timing.ts). */
  timing?: StationTiming;
}

/** A station's tab, with a DevTools session of its own for the capture itself. */
interface Tab {
  page: Page;
  devtools: CDPSession;
  /** The viewport last set on `devtools`. */
  viewport?: { width: number; scale: number };
}

/** What crosses the RPC boundary: a JobFailure's fields travel as data, since RPC keeps only an error's message. */
type StationAnswer =
  | ({ ok: true; capture: Capture } & StationTiming)
  | ({ ok: false; reason: FailureReason; final: boolean; detail?: string } & StationTiming);

/** Where a capture's time went inside the station. */
export interface StationTiming {
  /** Loading the page and waiting for it to be complete. */
  loadMs: number;
  /** The screenshot or PDF itself. */
  shotMs: number;
}

/**
 * Captures a rendered dashboard through a capture station (below). Jobs spread over
 * CAPTURE_STATIONS stations by `key` (the job id), so each station's browser serves its
 * share one capture at a time.
 */
export async function capture(env: Env, html: string, options: CaptureOptions, key = ""): Promise<Capture> {
  const stations = config(env).CAPTURE_STATIONS;
  const namespace = env.CAPTURE_STATION;
  const station = namespace.get(namespace.idFromName(`station-${stationIndex(key, stations)}`));
  const deadline = options.deadline ?? Date.now() + CAPTURE_BUDGET_MS;
  // The call and the timer are this request's own: nothing here waits on another request.
  const answer = await beforeDeadline(
    station.capture(html, { ...options, deadline }) as Promise<StationAnswer>,
    deadline + ANSWER_GRACE_MS,
    "the capture station's answer",
  );
  if (!answer.ok) throw new JobFailure(answer.reason, answer.final, answer.detail);
  return { ...answer.capture, timing: { loadMs: answer.loadMs, shotMs: answer.shotMs } };
}

/** Thrown when a step of a capture is still running at its deadline. */
export class PastDeadline extends Error {}

/**
 * `work`, or a PastDeadline failure once `deadline` (epoch ms) passes first. The work is not
 * stopped, only no longer waited for: `abandoned` gets it if it still succeeds (to release
 * what it holds).
 */
export async function beforeDeadline<T>(work: Promise<T>, deadline: number, what: string, abandoned?: (late: T) => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late = false;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        late = true;
        reject(new PastDeadline(`${what} did not come within the capture's deadline`));
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  work.then(
    (value) => late && abandoned?.(value),
    () => undefined,
  );
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function stationIndex(key: string, stations: number): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) >>> 0;
  return hash % stations;
}

/**
 * A capture station: a Durable Object that keeps one Browser Rendering connection and one
 * warm tab across jobs. A Worker may not reuse a WebSocket across requests, a Durable
 * Object may, so this saves every job the connect and the tab set-up (`npm run
 * bench:delivery` shows the stages). Captures run one after the other: the tab is shared,
 * and one browser composites one screenshot at a time anyway.
 *
 * Every call awaits only what it creates itself: it takes a number and watches, on its own
 * timer, for its turn (plain fields of the station, no promise of another call), and every
 * step of its capture is bounded by its deadline. A browser that died or stopped answering
 * fails the capture in hand (the attempt is retried) and the next call gets a new browser.
 */
export class CaptureStation extends DurableObject<Env> {
  private browser: Browser | undefined;
  private tab: Tab | undefined;
  /** The Browser Rendering session this station used last: the first it tries again. */
  private sessionId: string | undefined;
  /** Sessions that stopped answering: never connected to again (they time out on their own). */
  private readonly shunned = new Set<string>();
  /** Numbers of the calls waiting for the tab, first come first served. */
  private readonly waiting: number[] = [];
  private nextNumber = 0;
  private busy = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  async capture(html: string, options: CaptureOptions): Promise<StationAnswer> {
    const deadline = options.deadline ?? Date.now() + CAPTURE_BUDGET_MS;
    if (!(await this.turn(deadline))) {
      return {
        ok: false,
        reason: "render_failed",
        final: false,
        detail: "no turn at the capture station before the capture's deadline",
        loadMs: 0,
        shotMs: 0,
      };
    }
    try {
      return await this.captureNow(html, options, deadline);
    } finally {
      this.busy = false;
    }
  }

  /** Waits for this call's turn at the tab; false when the deadline passes first. */
  private async turn(deadline: number): Promise<boolean> {
    const number = this.nextNumber++;
    this.waiting.push(number);
    try {
      while (this.busy || this.waiting[0] !== number) {
        if (Date.now() >= deadline) return false;
        const pause = this.waiting[0] === number ? NEXT_LOOKS_MS : OTHERS_LOOK_MS;
        await new Promise((resolve) => setTimeout(resolve, Math.min(pause, deadline - Date.now())));
      }
      this.busy = true;
      return true;
    } finally {
      this.waiting.splice(this.waiting.indexOf(number), 1);
    }
  }

  private async captureNow(html: string, options: CaptureOptions, deadline: number): Promise<StationAnswer> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const timing: StationTiming = { loadMs: 0, shotMs: 0 };
    try {
      const tab = await this.warmTab(deadline);
      return { ok: true, capture: await captureOn(tab, html, options, deadline, timing), ...timing };
    } catch (error) {
      if (error instanceof JobFailure) return { ok: false, reason: error.reason, final: error.final, detail: error.detail, ...timing };
      // The browser died, the connection broke, or a step outlived the deadline: start afresh
      // next time — and never again in a session that stopped answering.
      this.letGo(error instanceof PastDeadline);
      return { ok: false, reason: "render_failed", final: false, detail: errorDetail(error), ...timing };
    } finally {
      this.idleTimer = setTimeout(() => this.letGo(), IDLE_DISCONNECT_MS);
    }
  }

  /** The warm tab, connecting (to a free session, else a new one) when there is none. */
  private async warmTab(deadline: number): Promise<Tab> {
    if (this.browser?.isConnected() && this.tab && !this.tab.page.isClosed()) return this.tab;
    this.letGo();
    const preferred = this.sessionId;
    const { browser, tab } = await beforeDeadline(acquire(this.env.BROWSER, preferred, this.shunned), deadline, "a browser tab", (late) =>
      late.browser.disconnect(),
    );
    this.sessionId = browser.sessionId();
    this.browser = browser;
    this.tab = tab;
    return tab;
  }

  /**
   * Disconnects from the browser. `shun`: its session stopped answering — closed (if it still
   * can be) and never connected to again.
   */
  private letGo(shun = false): void {
    const browser = this.browser;
    this.browser = undefined;
    this.tab = undefined;
    if (shun && this.sessionId) {
      this.shunned.add(this.sessionId);
      this.sessionId = undefined;
      // Not awaited: a browser that stopped answering may never answer this either.
      browser?.close().catch(() => undefined);
      return;
    }
    try {
      browser?.disconnect();
    } catch {
      // already gone
    }
  }
}

/**
 * A tab in a free Browser Rendering session (`preferred`, the station's last, first), in a
 * new one only when no free session gives one. A session counts as free only once a tab is
 * open in it: one going away (closed or timed out) may still accept the connection and then
 * fail to open a tab ("Failed to open a new tab"). Disconnecting later (not closing) leaves
 * the session warm for the next connect. `shunned` sessions stopped answering: skipped.
 */
async function acquire(
  binding: Fetcher,
  preferred: string | undefined,
  shunned: ReadonlySet<string>,
): Promise<{ browser: Browser; tab: Tab }> {
  if (preferred) {
    const warm = await openedIn(() => puppeteer.connect(binding, preferred));
    if (warm) return warm;
    // taken by another station, or gone: look for another
  }
  try {
    const sessions = await puppeteer.sessions(binding);
    for (const session of sessions.filter((s) => !s.connectionId && s.sessionId !== preferred && !shunned.has(s.sessionId))) {
      const warm = await openedIn(() => puppeteer.connect(binding, session.sessionId));
      if (warm) return warm;
      // taken or gone meanwhile: try the next one
    }
  } catch {
    // listing sessions failed: launch below
  }
  return openTab(await puppeteer.launch(binding, { keep_alive: 600_000 }));
}

/** The tab of a session `connect` reaches, or undefined when it cannot be reached or give one. */
async function openedIn(connect: () => Promise<Browser>): Promise<{ browser: Browser; tab: Tab } | undefined> {
  try {
    return await openTab(await connect());
  } catch {
    return undefined;
  }
}

/** The session's first tab (or a new one) with its DevTools session; disconnects when it cannot. */
async function openTab(browser: Browser): Promise<{ browser: Browser; tab: Tab }> {
  try {
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    return { browser, tab: { page, devtools: await page.createCDPSession() } };
  } catch (error) {
    browser.disconnect();
    throw error;
  }
}

/**
 * Loads the rendered dashboard, waits (bounded) for it to be complete, refuses anything that
 * is not a complete dashboard, and captures the full page at `width` CSS pixels (`scale`
 * device pixels each) as PNG/JPEG, or prints it as a PDF with backgrounds. Every DevTools
 * message crosses the Browser Rendering proxy, so the whole load is one message (the capture
 * script, browser/capture.ts, called with its arguments) and the capture another, sent
 * straight to the tab's DevTools session: what puppeteer's setContent + waitForSelector +
 * screenshot do in six to eight. No message is waited for past
 * `deadline`: a browser that vanished without closing the connection fails the capture then.
 */
async function captureOn(tab: Tab, html: string, options: CaptureOptions, deadline: number, timing: StationTiming): Promise<Capture> {
  const started = Date.now();
  // The tab keeps its viewport between jobs; setting an unchanged one would cost a relayout.
  // Set on the session that captures: the capture takes its scale from its own session.
  if (tab.viewport?.width !== options.width || tab.viewport.scale !== options.scale) {
    const metrics = { width: options.width, height: 800, deviceScaleFactor: options.scale, mobile: false };
    await beforeDeadline(tab.devtools.send("Emulation.setDeviceMetricsOverride", metrics), deadline, "the viewport");
    tab.viewport = { width: options.width, scale: options.scale };
  }
  // The page may wait for itself as long as the deadline leaves time for the shot.
  const timeoutMs = Math.max(0, Math.min(options.timeoutMs ?? RENDER_TIMEOUT_MS, deadline - Date.now() - SHOT_RESERVE_MS));
  const load = `(${CAPTURE_SCRIPT})(${JSON.stringify(html)}, ${timeoutMs})`; // the built function expression, called
  const state = (await beforeDeadline(tab.page.evaluate(load), deadline, "the page")) as PageState;
  const loaded = Date.now();
  timing.loadMs = loaded - started;
  assertCompleteDashboard(state, timeoutMs);
  if (options.format === "pdf") {
    const printed = tab.devtools.send("Page.printToPDF", {
      printBackground: true,
      paperWidth: options.width / 96,
      paperHeight: Math.round(options.width * Math.SQRT2) / 96,
      marginTop: 16 / 96,
      marginBottom: 16 / 96,
      marginLeft: 0,
      marginRight: 0,
      generateTaggedPDF: true, // accessible PDFs, as puppeteer prints them by default
      transferMode: "ReturnAsBase64",
    });
    const { data } = await beforeDeadline(printed, deadline, "the PDF");
    timing.shotMs = Date.now() - loaded;
    return { bytes: fromBase64(data), contentType: "application/pdf" };
  }
  const shot = tab.devtools.send("Page.captureScreenshot", { format: options.format, captureBeyondViewport: true });
  const { data } = await beforeDeadline(shot, deadline, "the screenshot");
  timing.shotMs = Date.now() - loaded;
  return { bytes: fromBase64(data), contentType: options.format === "jpeg" ? "image/jpeg" : "image/png" };
}

/** DevTools sends files as base64; Buffer decodes natively, where a byte-by-byte loop in JavaScript would spend CPU on every byte. */
function fromBase64(data: string): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.from(data, "base64");
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);
}

/** What the capture script (browser/capture.ts) answers about the page it loaded. */
interface PageState {
  dashboard: boolean;
  complete: boolean;
  data: number;
  failed: number;
}

/**
 * Only a finished dashboard is delivered: a dashboard is on the page (an error page is
 * not), the body says it is complete, and not every data panel failed to load (an empty
 * report that looks like success is worse than a failed job).
 */
function assertCompleteDashboard(state: PageState, timeoutMs: number): void {
  if (!state.dashboard) throw new JobFailure("not_a_dashboard", true, "the page has no dashboard");
  if (!state.complete) throw new JobFailure("incomplete_capture", false, `not marked complete within ${timeoutMs} ms`);
  if (state.data > 0 && state.failed === state.data) {
    throw new JobFailure("all_panels_failed", false, `${state.failed} of ${state.data} data panels failed`);
  }
}
