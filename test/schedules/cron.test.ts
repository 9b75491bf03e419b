import { describe, expect, it } from "vitest";
import { CronSchedule, cronProblem, slotString, timezoneProblem } from "../../src/schedules/cron";

// Each case: cron, time zone, "after" (UTC), and the next slots in UTC.
const cases: [string, string, string, string, string[]][] = [
  ["every minute", "* * * * *", "UTC", "2026-01-01T10:00:30Z", ["2026-01-01T10:01:00Z", "2026-01-01T10:02:00Z"]],
  ["minute step", "*/20 * * * *", "UTC", "2026-01-01T10:05:00Z", ["2026-01-01T10:20:00Z", "2026-01-01T10:40:00Z", "2026-01-01T11:00:00Z"]],
  [
    "range with step",
    "10-30/10 8 * * *",
    "UTC",
    "2026-01-01T00:00:00Z",
    ["2026-01-01T08:10:00Z", "2026-01-01T08:20:00Z", "2026-01-01T08:30:00Z", "2026-01-02T08:10:00Z"],
  ],
  [
    "list of hours",
    "0 6,12,18 * * *",
    "UTC",
    "2026-01-01T07:00:00Z",
    ["2026-01-01T12:00:00Z", "2026-01-01T18:00:00Z", "2026-01-02T06:00:00Z"],
  ],
  [
    "weekdays 09:00 Berlin (winter)",
    "0 9 * * 1-5",
    "Europe/Berlin",
    "2026-01-02T09:00:00Z",
    ["2026-01-05T08:00:00Z", "2026-01-06T08:00:00Z"],
  ],
  ["strictly after an exact slot", "0 9 * * *", "UTC", "2026-01-01T09:00:00Z", ["2026-01-02T09:00:00Z"]],
  [
    "day-of-month OR day-of-week",
    "0 0 13 * 5",
    "UTC",
    "2026-01-01T00:00:00Z",
    ["2026-01-02T00:00:00Z", "2026-01-09T00:00:00Z", "2026-01-13T00:00:00Z", "2026-01-16T00:00:00Z"],
  ],
  ["Sunday as 7", "0 12 * * 7", "UTC", "2026-01-01T00:00:00Z", ["2026-01-04T12:00:00Z", "2026-01-11T12:00:00Z"]],
  [
    "the 31st skips short months",
    "0 0 31 * *",
    "UTC",
    "2026-01-01T00:00:00Z",
    ["2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z"],
  ],
  [
    "first day of each month 08:00 Berlin",
    "0 8 1 * *",
    "Europe/Berlin",
    "2026-02-15T00:00:00Z",
    ["2026-03-01T07:00:00Z", "2026-04-01T06:00:00Z", "2026-05-01T06:00:00Z"],
  ],
  ["leap day", "0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z", ["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"]],
  [
    "month range across the year end",
    "0 0 1 11-12,1 *",
    "UTC",
    "2026-10-15T00:00:00Z",
    ["2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "2027-11-01T00:00:00Z"],
  ],
  [
    "09:00 Berlin on both sides of spring forward",
    "0 9 * * *",
    "Europe/Berlin",
    "2026-03-28T00:00:00Z",
    ["2026-03-28T08:00:00Z", "2026-03-29T07:00:00Z", "2026-03-30T07:00:00Z"],
  ],
  [
    "09:00 Berlin on both sides of fall back",
    "0 9 * * *",
    "Europe/Berlin",
    "2026-10-24T00:00:00Z",
    ["2026-10-24T07:00:00Z", "2026-10-25T08:00:00Z", "2026-10-26T08:00:00Z"],
  ],
  [
    "missing 02:30 Berlin runs once at 03:00",
    "30 2 * * *",
    "Europe/Berlin",
    "2026-03-28T12:00:00Z",
    ["2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"],
  ],
  [
    "repeated 02:30 Berlin runs once",
    "30 2 * * *",
    "Europe/Berlin",
    "2026-10-24T12:00:00Z",
    ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
  ],
  [
    "repeated hour 02:xx Berlin runs once per wall time",
    "0,30 2 * * *",
    "Europe/Berlin",
    "2026-10-24T12:00:00Z",
    ["2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:00:00Z"],
  ],
  [
    "an interval keeps running through the repeated hour",
    "30 * * * *",
    "Europe/Berlin",
    "2026-10-24T23:45:00Z",
    ["2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", "2026-10-25T02:30:00Z"],
  ],
  [
    "missing 02:30 New York runs once at 03:00",
    "30 2 * * *",
    "America/New_York",
    "2026-03-07T12:00:00Z",
    ["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"],
  ],
  [
    "repeated 01:30 New York runs once",
    "30 1 * * *",
    "America/New_York",
    "2026-10-31T12:00:00Z",
    ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"],
  ],
  [
    "09:00 New York across fall back",
    "0 9 * * *",
    "America/New_York",
    "2026-10-31T12:00:00Z",
    ["2026-10-31T13:00:00Z", "2026-11-01T14:00:00Z"],
  ],
  ["Kolkata half-hour offset", "0 9 * * *", "Asia/Kolkata", "2026-01-01T00:00:00Z", ["2026-01-01T03:30:00Z", "2026-01-02T03:30:00Z"]],
  [
    "Kolkata midnight is the previous UTC day",
    "0 0 1 * *",
    "Asia/Kolkata",
    "2026-01-15T00:00:00Z",
    ["2026-01-31T18:30:00Z", "2026-02-28T18:30:00Z"],
  ],
  ["UTC has no daylight saving", "30 2 * * *", "UTC", "2026-03-29T00:00:00Z", ["2026-03-29T02:30:00Z", "2026-03-30T02:30:00Z"]],
];

describe("next-run computation in the schedule's time zone", () => {
  it.each(cases)("%s: '%s' in %s after %s", (_name, cron, timezone, after, expected) => {
    const schedule = new CronSchedule(cron, timezone);
    expect(schedule.nextSlots(expected.length, new Date(after)).map(slotString)).toEqual(expected);
  });

  it.each(cases)(
    "%s: each slot is on a whole minute, and the slot after it is the next one listed",
    (_name, cron, timezone, after, expected) => {
      const schedule = new CronSchedule(cron, timezone);
      let from = new Date(after);
      for (const slot of expected) {
        const next = schedule.next(from);
        expect(next && slotString(next)).toBe(slot);
        expect(next!.getTime() % 60_000).toBe(0);
        from = next!;
      }
    },
  );

  it("returns no slot for a date that never exists", () => {
    expect(new CronSchedule("0 0 30 2 *", "UTC").next(new Date("2026-01-01T00:00:00Z"))).toBeNull();
  });
});

describe("the most recent slot of a window (downtime)", () => {
  it("picks the latest of three missed slots", () => {
    const schedule = new CronSchedule("0 * * * *", "UTC");
    expect(slotString(schedule.latestBetween(new Date("2026-01-01T10:00:00Z"), new Date("2026-01-01T12:30:00Z"))!)).toBe(
      "2026-01-01T12:00:00Z",
    );
  });

  it("includes both ends and finds a monthly slot after a long downtime", () => {
    const schedule = new CronSchedule("0 8 1 * *", "Europe/Berlin");
    expect(slotString(schedule.latestBetween(new Date("2026-01-01T07:00:00Z"), new Date("2026-01-01T07:00:00Z"))!)).toBe(
      "2026-01-01T07:00:00Z",
    );
    expect(slotString(schedule.latestBetween(new Date("2026-01-01T07:00:00Z"), new Date("2026-04-20T00:00:00Z"))!)).toBe(
      "2026-04-01T06:00:00Z",
    );
  });

  it("finds the latest every-minute slot after days of downtime", () => {
    const schedule = new CronSchedule("* * * * *", "UTC");
    expect(slotString(schedule.latestBetween(new Date("2026-01-01T00:00:00Z"), new Date("2026-01-09T13:07:00Z"))!)).toBe(
      "2026-01-09T13:07:00Z",
    );
  });

  it("is null when no slot falls in the window", () => {
    expect(
      new CronSchedule("0 9 * * *", "UTC").latestBetween(new Date("2026-01-01T09:01:00Z"), new Date("2026-01-02T08:59:00Z")),
    ).toBeNull();
  });
});

describe("validation of cron and time zone", () => {
  it.each([
    ["0 9 * *", "must have 5 fields"],
    ["0 0 9 * * *", "must have 5 fields"],
    ["60 * * * *", "minute"],
    ["0 24 * * *", "hour"],
    ["0 0 0 * *", "day"],
    ["0 0 * 13 *", "month"],
    ["0 0 * * 8", "dayOfWeek"],
    ["5-1 * * * *", "larger"],
    ["*/0 * * * *", "step"],
    ["0 9 L * *", "day-of-month field"],
    ["0 9 * * MON", "day-of-week field"],
    ["@daily", "must have 5 fields"],
  ])("refuses '%s'", (cron, fragment) => {
    expect(cronProblem(cron)?.toLowerCase()).toContain(fragment.toLowerCase());
  });

  it("accepts steps, ranges and lists", () => {
    for (const cron of ["* * * * *", "*/5 9-17 * * 1-5", "0 8 1 * *", "0,15,30,45 */2 1-7,15 1-12/3 0,6"])
      expect(cronProblem(cron)).toBeNull();
  });

  it("knows IANA time zones", () => {
    for (const tz of ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]) expect(timezoneProblem(tz)).toBeNull();
    for (const tz of ["Mars/Olympus", "", "Europe/Berlin!", "+01:00"]) expect(timezoneProblem(tz)).not.toBeNull();
  });
});
