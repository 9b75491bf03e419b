import { JobFailure } from "../job-state";

// Pages ahead of the capture station, per isolate. A burst of forty screenshot calls used to
// render all forty pages at once (each with its panels' queries) while the station had taken
// one: the renders held workerd's thread, the station's DevTools replies waited behind them,
// and the first capture came back after about 800 ms instead of 150. An attempt now takes a
// slot before it renders and gives it back when its capture has come back: the station always
// has the next page ready, and no more.

/** How long the first call in line waits between looks; the n-th in line n times as long, at most MAX_PAUSE_MS. */
const PAUSE_MS = 10;
const MAX_PAUSE_MS = 100;
/** A call in line that has not looked for this long is gone (its invocation ended): it leaves the line. */
const GONE_AFTER_MS = 2_000;
/** A slot held this long past its capture's deadline is taken back (an invocation that ended without giving it back). */
const SLOT_GRACE_MS = 5_000;

/** Slots held: their number → when they are taken back at the latest (epoch ms). */
const held = new Map<number, number>();
/** Calls waiting for a slot, first come first served, with when each last looked. */
const line: { ticket: number; seen: number }[] = [];
let nextTicket = 0;

export interface PageSlot {
  /** Gives the slot back (again: nothing). */
  release(): void;
}

/**
 * Waits for one of `limit` slots of this isolate (first come first served) and holds it until
 * released or `deadline` (epoch ms) plus a grace has passed. Fails the attempt (retried) when
 * no slot frees before `deadline`. Waits on its own timer: the attempts waiting are other
 * invocations, whose promises this one may not resolve.
 */
export async function takePageSlot(limit: number, deadline: number): Promise<PageSlot> {
  const ticket = nextTicket++;
  const me = { ticket, seen: Date.now() };
  line.push(me);
  try {
    for (;;) {
      const now = Date.now();
      me.seen = now;
      for (const [number, until] of held) if (until <= now) held.delete(number);
      for (let i = line.length - 1; i >= 0; i--) if (now - line[i].seen > GONE_AFTER_MS) line.splice(i, 1);
      const place = line.indexOf(me);
      if (place === 0 && held.size < limit) break;
      if (now >= deadline) throw new JobFailure("render_failed", false, "no turn to render before the capture's deadline");
      await scheduler.wait(Math.max(1, Math.min(deadline - now, PAUSE_MS * (place + 1), MAX_PAUSE_MS)));
    }
  } finally {
    const place = line.indexOf(me);
    if (place >= 0) line.splice(place, 1);
  }
  held.set(ticket, deadline + SLOT_GRACE_MS);
  return { release: () => held.delete(ticket) };
}

/** Slots held and calls waiting in this isolate (tests check that nothing is left behind). */
export function pageSlotsInUse(): { held: number; waiting: number } {
  return { held: held.size, waiting: line.length };
}
