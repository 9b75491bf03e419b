import { describe, expect, it } from "vitest";
import { admin, call, createCustomer, getCustomer, workspace } from "../helpers/api";
import { createTheme, DARK } from "../helpers/themes";

describe("theme, locale and timezone of customers (own and computed down the hierarchy)", () => {
  it("inherit down three levels, the nearest value winning, else the access group's default theme, en-US and UTC", async () => {
    await admin("PUT", "/admin/hierarchy_levels/", { levels: ["Customer", "Team", "User"] });
    const { write } = await workspace();
    const p = crypto.randomUUID().slice(0, 8);
    await createTheme(write, { name: "Brand", theme: { colors: { accent: "#b91c1c" } } });
    await createTheme(write, { name: "Night", theme: DARK });

    // Nothing set anywhere: the built-in defaults.
    await createCustomer(write, { provided_id: `${p}-org`, hierarchy_level_name: "Customer" });
    await createCustomer(write, { provided_id: `${p}-team`, parent_provided_id: `${p}-org`, hierarchy_level_name: "Team" });
    const user = await createCustomer(write, { provided_id: `${p}-user`, parent_provided_id: `${p}-team`, hierarchy_level_name: "User" });
    expect(user).toMatchObject({
      theme: null,
      locale: null,
      timezone: null,
      computed_theme: null,
      computed_locale: "en-US",
      computed_timezone: "UTC",
    });

    // The access group's default theme, when no customer of the chain names one.
    await call("POST", "/api/update_theme/", { token: write, body: { name: "night", is_default: true } });
    expect((await getCustomer(write, `${p}-user`)).body.customer.computed_theme).toBe("Night");

    // The root's values reach the grandchild; the team's own value wins over the root's.
    const org = await call("POST", "/api/update_customer/", {
      token: write,
      body: { provided_id: `${p}-org`, theme: "brand", locale: "de-de", timezone: "europe/berlin" },
    });
    expect(org.status).toBe(200);
    expect(org.body.customer).toMatchObject({ theme: "Brand", locale: "de-DE", timezone: "Europe/Berlin", computed_theme: "Brand" });
    await call("POST", "/api/update_customer/", { token: write, body: { provided_id: `${p}-team`, locale: "fr-CH" } });
    const res = await getCustomer(write, `${p}-user`);
    expect(res.body.customer).toMatchObject({
      theme: null,
      locale: null,
      computed_theme: "Brand",
      computed_locale: "fr-CH",
      computed_timezone: "Europe/Berlin",
    });

    // A rename follows; null clears (the user inherits the group default again once the root clears too).
    await call("POST", "/api/update_theme/", { token: write, body: { name: "Brand", new_name: "Brand 2" } });
    expect((await getCustomer(write, `${p}-user`)).body.customer.computed_theme).toBe("Brand 2");
    await call("POST", "/api/update_customer/", { token: write, body: { provided_id: `${p}-org`, theme: null, timezone: null } });
    expect((await getCustomer(write, `${p}-user`)).body.customer).toMatchObject({ computed_theme: "Night", computed_timezone: "UTC" });

    // A theme in use cannot be deleted; once nothing names it, it can.
    const own = await call("POST", "/api/update_customer/", { token: write, body: { provided_id: `${p}-user`, theme: "Brand 2" } });
    expect(own.body.customer).toMatchObject({ theme: "Brand 2", computed_theme: "Brand 2" });
    const inUse = await call("POST", "/api/delete_theme/", { token: write, body: { name: "Brand 2" } });
    expect(inUse.status).toBe(409);
    expect(inUse.body.error.code).toBe("theme_in_use");
    await call("POST", "/api/update_customer/", { token: write, body: { provided_id: `${p}-user`, theme: null } });
    expect((await call("POST", "/api/delete_theme/", { token: write, body: { name: "Brand 2" } })).status).toBe(200);

    // The list answers the same fields.
    const list = await call("GET", `/api/customers/?parent_provided_id=${p}-team`, { token: write });
    expect(list.body.customers[0]).toMatchObject({ computed_locale: "fr-CH", computed_theme: "Night" });
  });

  it("refuses an unknown theme (422), a malformed locale and an unknown time zone (400), each with a passing control", async () => {
    const { write } = await workspace();
    await createTheme(write, { name: "Brand", theme: {} });
    const p = crypto.randomUUID().slice(0, 8);
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ theme: "Nope" }, 422, "unknown_theme", "theme"],
      [{ locale: "not a locale!" }, 400, "validation_error", "locale"],
      [{ locale: "en_US" }, 400, "validation_error", "locale"],
      [{ timezone: "Mars/Olympus" }, 400, "validation_error", "timezone"],
      [{ timezone: "+01:00" }, 400, "validation_error", "timezone"],
    ];
    for (const [fields, status, code, field] of cases) {
      const create = await call("POST", "/api/create_customer/", { token: write, body: { provided_id: `${p}-x`, ...fields } });
      expect(create.status, JSON.stringify(fields)).toBe(status);
      expect(create.body.error).toMatchObject({ code, field });
    }
    const created = await createCustomer(write, { provided_id: `${p}-x`, theme: "BRAND", locale: "ar-eg", timezone: "Asia/Tokyo" });
    expect(created).toMatchObject({ theme: "Brand", locale: "ar-EG", timezone: "Asia/Tokyo" });
    for (const [fields, status, code, field] of cases) {
      const update = await call("POST", "/api/update_customer/", { token: write, body: { provided_id: `${p}-x`, ...fields } });
      expect(update.status, JSON.stringify(fields)).toBe(status);
      expect(update.body.error).toMatchObject({ code, field });
    }
    // Controls: null clears each.
    const cleared = await call("POST", "/api/update_customer/", {
      token: write,
      body: { provided_id: `${p}-x`, theme: null, locale: null, timezone: null },
    });
    expect(cleared.body.customer).toMatchObject({ theme: null, locale: null, timezone: null, computed_locale: "en-US" });
  });
});
