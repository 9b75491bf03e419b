import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, getCustomer, roundTrips, schemaAndSource, workspace } from "../helpers/api";

describe("computed_properties and computed_parent_schema_datasource_mapping", () => {
  it("inherit across three levels, the nearest definition winning", async () => {
    const levels = await admin("PUT", "/admin/hierarchy_levels/", { levels: ["Customer", "Team", "User"] });
    expect(levels.body.levels).toEqual(["Customer", "Team", "User"]);
    const { write } = await workspace();
    const s1 = await schemaAndSource();
    const s2 = await schemaAndSource();
    const other = await schemaAndSource();

    await createCustomer(write, {
      provided_id: "org",
      hierarchy_level_name: "Customer",
      properties: { region: "EU", plan: "gold", tier: 1 },
      mapping: { [s1.schemaId]: s1.dataSourceId, [s2.schemaId]: s2.dataSourceId },
    });
    await createCustomer(write, {
      provided_id: "team",
      parent_provided_id: "org",
      hierarchy_level_name: "Team",
      properties: { plan: "silver", team: "blue" },
      mapping: { [s2.schemaId]: other.dataSourceId },
    });
    await createCustomer(write, { provided_id: "user", parent_provided_id: "team", hierarchy_level_name: "User", properties: { tier: 3 } });

    const res = await getCustomer(write, "user");
    expect(roundTrips(res)).toBe(1);
    expect(res.body.customer.properties).toEqual({ tier: 3 });
    expect(res.body.customer.computed_properties).toEqual({ region: "EU", plan: "silver", tier: 3, team: "blue" });
    expect(res.body.customer.parent_schema_datasource_mapping).toBeNull();
    expect(res.body.customer.computed_parent_schema_datasource_mapping).toEqual({
      [String(s1.schemaId)]: String(s1.dataSourceId),
      [String(s2.schemaId)]: String(other.dataSourceId),
    });

    // A change high up shows at once further down.
    await call("POST", "/api/update_customer/", { token: write, body: { provided_id: "org", properties: { region: "US" } } });
    const after = await getCustomer(write, "user");
    expect(after.body.customer.computed_properties).toEqual({ region: "US", plan: "silver", tier: 3, team: "blue" });
  });
});
