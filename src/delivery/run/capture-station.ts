import { DurableObject } from "cloudflare:workers";
import type { Browser } from "@cloudflare/puppeteer";
import { config } from "../../config";
import type { Env } from "../../env";
import { errorDetail } from "../../lib/log";
import { JobFailure, type FailureReason } from "../job-state";
import { acquire, type Tab } from "./browser-session";
import { beforeDeadline, PastDeadline } from "./deadline";
import { type Capture, type CaptureOptions, captureOn, type StationTiming } from "./page-capture";

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
/** A call waiting in the station's line: woken when the tab is handed to it. */
interface InLine {
  wake: () => void;
}

/** What crosses the RPC boundary: a JobFailure's fields travel as data, since RPC keeps only an error's message. */
type StationAnswer =
  | ({ ok: true; capture: Capture } & StationTiming)
  | ({ ok: false; reason: FailureReason; final: boolean; detail?: string } & StationTiming);

/**
 * Captures a rendered dashboard through a capture station (below). Jobs spread over
 * CAPTURE_STATIONS stations by `key` (the job id), so each station's browser serves its
 * share one capture at a time.
 */
export async function capture(env: Env, html: string, options: CaptureOptions, key = ""): Promise<Capture> {
  const stations = config(env).CAPTURE_STATIONS;
  const namespace = env.CAPTURE_STATION;
  const station = namespace.get(namespace.idFromName(captureStationName(stationIndex(key, stations))));
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

/** The Durable Object name of capture station `index` (0 … CAPTURE_STATIONS − 1). */
export function captureStationName(index: number): string {
  return `station-${index}`;
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
 * Calls wait in line: the call that lets go of the tab hands it to the next one, waking it
 * (a Durable Object's calls share one I/O context, so a promise may cross them here as
 * the browser connection does; no call looks at the line on a timer, which cost a burst of
 * forty waiting calls thousands of wake-ups). A call waits at most until its deadline, and
 * every step of its capture is bounded by it. A browser that died or stopped answering
 * fails the capture in hand (the attempt is retried) and the next call gets a new browser.
 */
export class CaptureStation extends DurableObject<Env> {
  private browser: Browser | undefined;
  private tab: Tab | undefined;
  /** The Browser Rendering session this station used last: the first it tries again. */
  private sessionId: string | undefined;
  /** Sessions that stopped answering: never connected to again (they time out on their own). */
  private readonly shunned = new Set<string>();
  /** The calls waiting for the tab, first come first served. */
  private readonly line: InLine[] = [];
  /** Whether a call holds the tab (from its turn until it lets go). */
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
      this.handOver();
    }
  }

  /** Waits for this call's turn at the tab; false when the deadline passes first (its place in line is then given up). */
  private async turn(deadline: number): Promise<boolean> {
    if (!this.busy) {
      this.busy = true;
      return true;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waiting = new Promise<boolean>((resolve) => {
      const call: InLine = { wake: () => resolve(true) };
      this.line.push(call);
      timer = setTimeout(
        () => {
          const place = this.line.indexOf(call);
          if (place < 0) return; // handed the tab meanwhile: its wake-up is on the way
          this.line.splice(place, 1);
          resolve(false);
        },
        Math.max(0, deadline - Date.now()),
      );
    });
    try {
      return await waiting;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Gives the tab to the next call in line, or frees it. */
  private handOver(): void {
    const next = this.line.shift();
    if (next) next.wake();
    else this.busy = false;
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
