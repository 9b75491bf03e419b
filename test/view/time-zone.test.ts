import { describe, expect, it } from "vitest";
import { CreateCustomerBody } from "../../src/customers/schemas";
import { RuleFields } from "../../src/schedules/schemas";
import { TimeZone } from "../../src/view/presentation";

// One time-zone field: customers, tokens, deliveries, schedules, alerts and subscriptions all
// take the view's TimeZone, so a zone means the same thing and is spelled the same everywhere.
describe("the time-zone field", () => {
  it("mends the case of a known zone, keeps the IANA name the caller gave, refuses offsets and unknown zones", () => {
    expect(TimeZone.parse("europe/berlin")).toBe("Europe/Berlin");
    expect(TimeZone.parse("Asia/Kolkata")).toBe("Asia/Kolkata");
    expect(TimeZone.parse("UTC")).toBe("UTC");
    for (const refused of ["+01:00", "Mars/Olympus", "", "Europe/Berlin!"])
      expect(TimeZone.safeParse(refused).success, refused).toBe(false);
  });

  it("is the field schedules take as customers do (a schedule's lower-cased zone is answered as a customer's)", () => {
    const rule = RuleFields.pick({ timezone: true }).parse({ timezone: "europe/berlin" });
    const customer = CreateCustomerBody.pick({ timezone: true }).parse({ timezone: "europe/berlin" });
    expect(rule.timezone).toBe("Europe/Berlin");
    expect(customer.timezone).toBe(rule.timezone);
  });
});
