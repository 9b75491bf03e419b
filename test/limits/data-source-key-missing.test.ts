import { describe, expect, it } from "vitest";
import { admin } from "../helpers/api";

// This project runs without DATA_SOURCE_KEY (vitest.config.mts): a ClickHouse password cannot be sealed.
describe("a ClickHouse data source without DATA_SOURCE_KEY", () => {
  it("answers 503 data_source_key_missing and stores nothing; a D1 source is still created (the control)", async () => {
    const before = (await admin("GET", "/admin/data_sources/")).body.data_sources;
    const res = await admin("POST", "/admin/data_sources/", {
      name: "Events",
      kind: "clickhouse",
      connection: { url: "https://analytics.example.com:8443", user: "reader", password: "s3cret" },
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: 0, error: { code: "data_source_key_missing", field: "connection.password" } });
    expect(res.body.error.message).toContain("DATA_SOURCE_KEY");
    expect(JSON.stringify(res.body)).not.toContain("s3cret");
    expect((await admin("GET", "/admin/data_sources/")).body.data_sources).toEqual(before);
    const d1 = await admin("POST", "/admin/data_sources/", { name: "Demo", binding: "DEMO_DATA" });
    expect(d1.status).toBe(200);
  });
});
