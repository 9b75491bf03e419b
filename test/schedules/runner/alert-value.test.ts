import { describe, expect, it } from "vitest";
import { firstValue, isDecimalText } from "../../../src/schedules/runner/alert-rule";

/** The pattern the parser replaced: the reference for what is numeric text. */
const REFERENCE = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

describe("the alert's value parser", () => {
  it("reads a 40,000-digit value that is not a number in linear time (it took seconds)", () => {
    const started = performance.now();
    expect(firstValue([{ value: `${"1".repeat(40_000)}x` }], "value")).toBeNull();
    expect(firstValue([{ value: `${"1".repeat(40_000)}.${"2".repeat(40_000)}e` }], null)).toBeNull();
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("a 40,000-digit number is beyond a double: no value (as NaN or Infinity are), not Infinity", () => {
    expect(firstValue([{ value: "9".repeat(40_000) }], "value")).toBeNull();
    expect(firstValue([{ value: 10n ** 400n }], "value")).toBeNull();
  });

  it("reads numeric text as before (control)", () => {
    const rows = (value: unknown) => [{ label: "x", value }];
    expect(firstValue(rows("312"), null)).toBe(312);
    expect(firstValue(rows(" -12.5 "), "value")).toBe(-12.5);
    expect(firstValue(rows("+1e3"), "value")).toBe(1000);
    expect(firstValue(rows(".5"), "value")).toBe(0.5);
    expect(firstValue(rows("7."), "value")).toBe(7);
    expect(firstValue(rows(42n), "value")).toBe(42);
    expect(firstValue(rows("12 apples"), "value")).toBeNull();
    expect(firstValue(rows("1e"), "value")).toBeNull();
    expect(firstValue(rows("."), "value")).toBeNull();
    expect(firstValue(rows(""), "value")).toBeNull();
  });

  it("agrees with the pattern it replaced on random numeric-looking text", () => {
    const alphabet = ["1", "0", "9", ".", "e", "E", "-", "+", " ", "x"];
    let seed = 35;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 5000; run++) {
      const length = Math.floor(random() * 8);
      const text = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      expect([text, isDecimalText(text)]).toEqual([text, REFERENCE.test(text)]);
    }
  });
});
