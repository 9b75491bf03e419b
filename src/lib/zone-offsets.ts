// A time zone's UTC offsets, read from the runtime's own zone database through Intl. SQLite
// (D1) has no zone database: the report builder binds a zone's offset transitions over the
// data's range (computed here) and shifts each instant by the offset in force at it.
// Time math, not presentation: the report builder's buckets and the schedules' cron read it,
// nothing here decides how a page looks or speaks, so it is a pure helper (src/lib), not src/view.

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      era: "short",
    });
    formats.set(zone, format);
  }
  return format;
}

/** Whether the name is a zone the runtime knows (an IANA name such as `Europe/Berlin`). */
export function isKnownTimeZone(zone: string): boolean {
  try {
    formatOf(zone);
    return true;
  } catch {
    return false;
  }
}

/** UTC and its aliases: no offset ever, so nothing to compute or bind. */
export function isUtc(zone: string): boolean {
  return /^(Etc\/)?(UTC|UCT|GMT|Zulu|Universal|Greenwich)(0|\+0|-0)?$/i.test(zone);
}

/** The wall-clock fields of an instant in a zone. */
export function wallClock(
  zone: string,
  ms: number,
): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts: Record<string, string> = {};
  for (const part of formatOf(zone).formatToParts(ms)) parts[part.type] = part.value;
  const year = parts.era === "BC" || parts.era === "B" ? 1 - Number(parts.year) : Number(parts.year);
  return {
    year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The zone's offset from UTC at an instant, in whole seconds (east positive). */
export function offsetSeconds(zone: string, ms: number): number {
  const w = wallClock(zone, ms);
  const date = new Date(0);
  date.setUTCFullYear(w.year, w.month - 1, w.day);
  date.setUTCHours(w.hour, w.minute, w.second, 0);
  return Math.round((date.getTime() - Math.floor(ms / 1000) * 1000) / 1000);
}

const DAY = 86_400_000;
/** Offsets change at most once within this step (zones change twice a year, months apart). */
const STEP = 7 * DAY;
/** Years whose transitions are computed; before and after, the nearest year's offset holds. */
export const FIRST_YEAR = 1900;
export const LAST_YEAR = 2200;

/** The offset changes of one year, cached per isolate: [first instant of the new offset (ms), offset (s)]. */
const yearCache = new Map<string, [number, number][]>();

function transitionsOfYear(zone: string, year: number): [number, number][] {
  const key = `${zone}|${year}`;
  const cached = yearCache.get(key);
  if (cached) return cached;
  const found: [number, number][] = [];
  const end = Date.UTC(year + 1, 0, 1);
  let at = Date.UTC(year, 0, 1);
  let offset = offsetSeconds(zone, at);
  while (at < end) {
    const next = Math.min(at + STEP, end);
    const nextOffset = offsetSeconds(zone, next);
    if (nextOffset !== offset) {
      // The first second with the new offset (zones change on whole seconds).
      let lo = at;
      let hi = next;
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (offsetSeconds(zone, mid) === offset) lo = mid;
        else hi = mid;
      }
      if (hi < end) found.push([hi, nextOffset]);
      offset = nextOffset;
    }
    at = next;
  }
  yearCache.set(key, found);
  return found;
}

/**
 * The offsets in force from `fromMs` to `toMs`: the first entry's start is `""` (every
 * instant before the range, too), then one entry per change, each starting at its first
 * instant spelled as `toISOString()` spells it — the spelling SQLite's instants are compared
 * in as text. Years outside 1900–2200 take the nearest computed year's offset.
 */
export function offsetTransitions(zone: string, fromMs: number, toMs: number): [string, number][] {
  const clamp = (ms: number) => Math.min(Math.max(ms, Date.UTC(FIRST_YEAR, 0, 1)), Date.UTC(LAST_YEAR, 11, 31));
  const from = clamp(fromMs);
  const to = clamp(Math.max(fromMs, toMs));
  const entries: [string, number][] = [["", offsetSeconds(zone, from)]];
  for (let year = new Date(from).getUTCFullYear(); year <= new Date(to).getUTCFullYear(); year++) {
    for (const [at, offset] of transitionsOfYear(zone, year)) {
      if (at > from && at <= to) entries.push([new Date(at).toISOString(), offset]);
    }
  }
  return entries;
}

/**
 * The first instant of a local calendar day in a zone (usually its midnight; on a day whose
 * midnight is skipped by a change of offset, the change). Found by bisection over the
 * instants whose local date could be that day.
 */
export function startOfLocalDay(zone: string, year: number, month: number, day: number): number {
  const target = Date.UTC(year, month - 1, day);
  const localDay = (ms: number) => {
    const w = wallClock(zone, ms);
    const d = new Date(0);
    d.setUTCFullYear(w.year, w.month - 1, w.day);
    return d.getTime();
  };
  // Offsets lie within ±26 h: the day starts somewhere in this window.
  let lo = target - 27 * 3_600_000;
  let hi = target + 27 * 3_600_000;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (localDay(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}
