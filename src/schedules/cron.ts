import { Cron } from "croner";
import { offsetSeconds } from "../lib/zone-offsets";
import { errorDetail } from "../lib/log";
import { canonicalTimeZone } from "../view/presentation";

/**
 * Cron slots in a schedule's IANA time zone, on top of `croner` (time zones and the
 * daylight-saving gap handled by the library; day-of-month and day-of-week combine with OR,
 * as in Vixie cron). Rules of our own, in this one place:
 * - exactly five fields of numbers, `*`, lists, ranges and steps (no names, no `L`/`W`/`#`);
 * - a wall-clock time that happens twice when the clocks go back runs once (the first
 *   time), unless the hour field is `*`-based: then the schedule is an interval and keeps
 *   running through the repeated hour;
 * - a slot is a whole UTC minute.
 */

const FIELD_ITEM = String.raw`(?:\*|\d{1,2}(?:-\d{1,2})?)(?:\/\d{1,2})?`;
const FIELD = new RegExp(`^${FIELD_ITEM}(?:,${FIELD_ITEM})*$`);
const FIELD_NAMES = ["minute", "hour", "day-of-month", "month", "day-of-week"];
const MINUTE = 60_000;

/** Why `expression` is not a valid five-field cron, or null when it is. */
export function cronProblem(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return "must have 5 fields: minute hour day-of-month month day-of-week";
  const bad = fields.findIndex((field) => !FIELD.test(field));
  if (bad >= 0) return `${FIELD_NAMES[bad]} field '${fields[bad]}': use numbers, *, lists (a,b), ranges (a-b) and steps (*/n, a-b/n)`;
  try {
    new Cron(fields.join(" "), { timezone: "UTC" });
  } catch (error) {
    return errorDetail(error).replace(/^CronPattern:\s*/, "");
  }
  return null;
}

/** Why `name` is not an IANA time zone the runtime knows, or null when it is. */
export function timezoneProblem(name: string): string | null {
  // The API's one zone rule (the TimeZone field of src/view/presentation.ts).
  return canonicalTimeZone(name) === null ? "must be an IANA time zone name such as Europe/Berlin" : null;
}

/** Minutes the zone's wall clock is ahead of UTC at `at` (the one offset reader, src/lib/zone-offsets.ts). */
function offsetMinutes(timezone: string, at: number): number {
  return Math.round(offsetSeconds(timezone, at) / 60);
}

/** The slot as the API shows it: ISO 8601 UTC, whole minute, e.g. 2026-12-01T07:00:00Z. */
export function slotString(at: Date): string {
  return `${at.toISOString().slice(0, 16)}:00Z`;
}

export function minuteOf(at: Date | number): Date {
  const ms = typeof at === "number" ? at : at.getTime();
  return new Date(Math.floor(ms / MINUTE) * MINUTE);
}

export class CronSchedule {
  private readonly cron: Cron;
  private readonly hourIsInterval: boolean;

  /** Expects a valid expression and time zone (see cronProblem, timezoneProblem). */
  constructor(
    expression: string,
    private readonly timezone: string,
  ) {
    const fields = expression.trim().split(/\s+/);
    this.cron = new Cron(fields.join(" "), { timezone });
    this.hourIsInterval = fields[1].startsWith("*");
  }

  /** The first slot strictly after `after`, or null when the expression never matches again. */
  next(after: Date): Date | null {
    let from = after;
    for (let guard = 0; guard < 8; guard++) {
      const candidate = this.cron.nextRun(from);
      if (!candidate) return null;
      if (!this.repeatsEarlierWallTime(candidate.getTime())) return candidate;
      from = candidate;
    }
    return null;
  }

  /** The next `count` slots after `after`. */
  nextSlots(count: number, after: Date): Date[] {
    const slots: Date[] = [];
    let from: Date | null = after;
    while (slots.length < count) {
      from = this.next(from);
      if (from === null) break;
      slots.push(from);
    }
    return slots;
  }

  /**
   * The most recent slot in [from, until], or null. After downtime only this one runs.
   * Frequent crons are searched in the last day first, so a long downtime stays cheap.
   */
  latestBetween(from: Date, until: Date): Date | null {
    const day = 25 * 60 * MINUTE;
    if (until.getTime() - from.getTime() > day) {
      const recent = this.scan(new Date(until.getTime() - day), until);
      if (recent) return recent;
    }
    return this.scan(from, until);
  }

  private scan(from: Date, until: Date): Date | null {
    let latest: Date | null = null;
    let slot = this.next(new Date(from.getTime() - 1000));
    while (slot && slot.getTime() <= until.getTime()) {
      latest = slot;
      slot = this.next(slot);
    }
    return latest;
  }

  /** True for the second occurrence of a wall-clock time when the clocks went back. */
  private repeatsEarlierWallTime(at: number): boolean {
    if (this.hourIsInterval) return false;
    const now = offsetMinutes(this.timezone, at);
    const before = offsetMinutes(this.timezone, at - 3 * 60 * MINUTE);
    const shift = before - now;
    return shift > 0 && offsetMinutes(this.timezone, at - shift * MINUTE) === before;
  }
}
