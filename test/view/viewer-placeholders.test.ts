import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bindPlaceholders, NO_CUSTOMER, placeholderProblem } from "../../src/data/placeholders";

// `{{viewer.locale}}` and `{{viewer.timezone}}`: bound like every placeholder (never spliced).
describe("viewer placeholders", () => {
  it("bind the view's locale and time zone as parameters, en-US and UTC when the view names none", async () => {
    const viewer = { ...NO_CUSTOMER, viewer: { locale: "de-DE", timezone: "Europe/Berlin" } };
    const bound = bindPlaceholders("SELECT {{viewer.locale}} AS locale, {{ viewer.timezone }} AS zone", viewer);
    expect(bound.params).toEqual(["de-DE", "Europe/Berlin"]);
    expect(bound.sql).not.toContain("Europe");
    const db = (env as unknown as { DEMO_DATA: D1Database }).DEMO_DATA;
    const row = await db
      .prepare(bound.sql)
      .bind(...bound.params)
      .first();
    expect(row).toEqual({ locale: "de-DE", zone: "Europe/Berlin" });
    expect(bindPlaceholders("SELECT {{viewer.timezone}}", NO_CUSTOMER).params).toEqual(["UTC"]);
    // PostgreSQL numbers them: AT TIME ZONE $1.
    expect(bindPlaceholders("SELECT now() AT TIME ZONE {{viewer.timezone}}", viewer, "postgres").sql).toContain("$1");
  });

  it("are known when a version is saved; another viewer field is not (control)", () => {
    expect(placeholderProblem("{{viewer.locale}} {{viewer.timezone}}")).toBeNull();
    expect(placeholderProblem("{{viewer.email}}")).toMatch(/unknown placeholder/);
  });
});
