import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createCustomer, unique, workspace } from "../helpers/api";

const DB = (env as unknown as { DB: D1Database }).DB;
const ROUNDS = 40;

async function orphans(): Promise<number> {
  const row = await DB.prepare(
    "SELECT count(*) AS n FROM customers c WHERE c.parent_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM customers p WHERE p.id = c.parent_id)",
  ).first<{ n: number }>();
  return row!.n;
}

describe("a parent deleted while a child is written under it", () => {
  it("creating a child concurrently with deleting its parent: never a 5xx, never an orphan", async () => {
    const { write } = await workspace();
    const outcomes = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const parent = await createCustomer(write, { provided_id: unique("parent") });
      const childId = unique("child");
      const [created, deleted] = await Promise.all([
        call("POST", "/api/create_customer/", {
          token: write,
          body: { provided_id: childId, hierarchy_level_name: "User", parent_provided_id: parent.provided_id },
        }),
        call("DELETE", "/api/delete_customer/", { token: write, body: { current_token: parent.token } }),
      ]);
      expect(created.status).toBeLessThan(500);
      expect(deleted.status).toBeLessThan(500);
      if (created.status !== 200) expect(created.body.error).toMatchObject({ code: "parent_not_found", field: "parent_provided_id" });
      if (deleted.status !== 200) expect(deleted.body.error.code).toBe("customer_has_children");
      // Exactly one of them wins.
      expect([created.status, deleted.status].filter((s) => s === 200)).toHaveLength(1);
      outcomes.add(`${created.status}/${deleted.status}`);
    }
    expect(await orphans()).toBe(0);
  }, 120_000);

  it("moving a child to a parent that is being deleted: never a 5xx, never an orphan", async () => {
    const { write } = await workspace();
    for (let round = 0; round < ROUNDS; round++) {
      const parent = await createCustomer(write, { provided_id: unique("parent") });
      const child = await createCustomer(write, { provided_id: unique("child"), hierarchy_level_name: "User" });
      const [moved, deleted] = await Promise.all([
        call("POST", "/api/update_customer/", {
          token: write,
          body: { provided_id: child.provided_id, parent_provided_id: parent.provided_id },
        }),
        call("DELETE", "/api/delete_customer/", { token: write, body: { current_token: parent.token } }),
      ]);
      expect(moved.status).toBeLessThan(500);
      expect(deleted.status).toBeLessThan(500);
      if (moved.status !== 200) expect(moved.body.error).toMatchObject({ code: "parent_not_found", field: "parent_provided_id" });
      if (moved.status !== 200) {
        // Nothing changed on the refused update.
        const after = await call("POST", "/api/get_customer/", { token: write, body: { provided_id: child.provided_id } });
        expect(after.body.customer.parent_provided_id ?? null).toBeNull();
      }
    }
    expect(await orphans()).toBe(0);
  }, 120_000);
});
