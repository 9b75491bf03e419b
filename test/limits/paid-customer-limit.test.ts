import { describe, expect, it } from "vitest";
import { call, createCustomer, getCustomer, workspace } from "../helpers/api";

// This project runs with PAID_CUSTOMER_LIMIT=3 (vitest.config.mts); each file has its own database.
describe("paid-customer limit (PAID_CUSTOMER_LIMIT=3)", () => {
  it("lets at most 3 non-demo customers exist, even when created in parallel; demo customers are exempt", async () => {
    const { write } = await workspace();
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call("POST", "/api/create_customer/", { token: write, body: { provided_id: `paid-${i}` } })),
    );
    expect(attempts.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = attempts.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("paid_customer_limit_reached");
    }
    const list = await call("GET", "/api/customers/", { token: write });
    expect(list.body.customers).toHaveLength(3);

    const demo = await call("POST", "/api/create_customer/", { token: write, body: { provided_id: "demo-1", is_demo_group: true } });
    expect(demo.status).toBe(200);

    // Turning a demo customer into a paid one is refused while the limit is reached.
    const upgrade = await call("POST", "/api/update_customer/", { token: write, body: { provided_id: "demo-1", is_demo_group: false } });
    expect(upgrade.status).toBe(403);
    expect(upgrade.body.error.code).toBe("paid_customer_limit_reached");
    expect((await getCustomer(write, "demo-1")).body.customer.is_demo_group).toBe(true);

    // Deleting a paid customer frees a place.
    const paid = list.body.customers[0];
    expect((await call("DELETE", "/api/delete_customer/", { token: write, body: { current_token: paid.token } })).status).toBe(200);
    const upgraded = await call("POST", "/api/update_customer/", { token: write, body: { provided_id: "demo-1", is_demo_group: false } });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.customer.is_demo_group).toBe(false);
  });

  it("returns an existing customer even at the limit", async () => {
    const { write } = await workspace();
    const existing = await createCustomer(write, { provided_id: "demo-existing", is_demo_group: true });
    const again = await call("POST", "/api/create_customer/", { token: write, body: { provided_id: "demo-existing" } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ new_customer: false, customer: existing });
  });
});
