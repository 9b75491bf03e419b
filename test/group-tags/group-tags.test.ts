import { describe, expect, it } from "vitest";
import { call, createCustomer, createTag, getCustomer, workspace } from "../helpers/api";
import { dashboard, kpi, sources } from "../helpers/dashboards";

const post = (token: string, path: string, body: unknown) => call("POST", path, { token, body });
const names = async (token: string) =>
  (await call("GET", "/api/group_tags/", { token })).body.group_tags.map((t: { name: string }) => t.name);

describe("group tags", () => {
  it("creates a tag keeping its case", async () => {
    const { write } = await workspace();
    const res = await post(write, "/api/create_group_tag/", { name: "Premium" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 1, group_tag: { name: "Premium" } });
  });

  it("refuses a name that exists in any case (409 group_tag_exists)", async () => {
    const { write } = await workspace();
    await createTag(write, "Dup");
    const res = await post(write, "/api/create_group_tag/", { name: "dUP" });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: "group_tag_exists", field: "name" });
  });

  it.each([
    [{}, "name"],
    [{ name: "" }, "name"],
    [{ name: "x".repeat(65) }, "name"],
    [{ name: 7 }, "name"],
  ])("rejects %j (400 validation_error)", async (body, field) => {
    const { write } = await workspace();
    const before = await names(write);
    const res = await post(write, "/api/create_group_tag/", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
    expect(await names(write)).toEqual(before);
  });

  it("lists tags ordered by name case-insensitively, to read tokens too", async () => {
    const { write, read } = await workspace();
    for (const name of ["beta", "Alpha", "gamma", "Delta"]) await createTag(write, `${name}`);
    const list = await names(read);
    const mine = list.filter((n: string) => ["beta", "Alpha", "gamma", "Delta"].includes(n));
    expect(mine).toEqual(["Alpha", "beta", "Delta", "gamma"]);
  });

  it("renames a tag; customers keep it under the new name", async () => {
    const { write } = await workspace();
    await createTag(write, "old-name");
    await createCustomer(write, { provided_id: "tagged", group_tags: ["old-name"] });
    const res = await post(write, "/api/rename_group_tag/", { name: "OLD-NAME", new_name: "New-Name" });
    expect(res.body).toEqual({ success: 1, group_tag: { name: "New-Name" } });
    expect((await getCustomer(write, "tagged")).body.customer.group_tags).toEqual(["New-Name"]);
    expect(await names(write)).toContain("New-Name");
    expect(await names(write)).not.toContain("old-name");
  });

  it("allows renaming to another case of the same name", async () => {
    const { write } = await workspace();
    await createTag(write, "casey");
    const res = await post(write, "/api/rename_group_tag/", { name: "casey", new_name: "CASEY" });
    expect(res.status).toBe(200);
    expect(res.body.group_tag.name).toBe("CASEY");
  });

  it("refuses renaming onto another tag (409 group_tag_exists) and an unknown tag (404 group_tag_not_found)", async () => {
    const { write } = await workspace();
    await createTag(write, "one");
    await createTag(write, "two");
    const clash = await post(write, "/api/rename_group_tag/", { name: "one", new_name: "TWO" });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: "group_tag_exists", field: "new_name" });
    const missing = await post(write, "/api/rename_group_tag/", { name: "three", new_name: "four" });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("group_tag_not_found");
    const list = await names(write);
    expect(list).toEqual(expect.arrayContaining(["one", "two"]));
    expect(list).not.toContain("four");
  });

  it("rejects a rename without new_name (400)", async () => {
    const { write } = await workspace();
    await createTag(write, "keep");
    const res = await post(write, "/api/rename_group_tag/", { name: "keep" });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe("new_name");
  });

  it("deletes a tag and removes it from every customer", async () => {
    const { write } = await workspace();
    await createTag(write, "gone");
    await createTag(write, "stays");
    await createCustomer(write, { provided_id: "t1", group_tags: ["gone", "stays"] });
    await createCustomer(write, { provided_id: "t2", group_tags: ["gone"] });
    const res = await post(write, "/api/delete_group_tag/", { name: "GONE" });
    expect(res.body).toEqual({ success: 1 });
    expect((await getCustomer(write, "t1")).body.customer.group_tags).toEqual(["stays"]);
    expect((await getCustomer(write, "t2")).body.customer.group_tags).toEqual([]);
    const again = await post(write, "/api/delete_group_tag/", { name: "gone" });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("group_tag_not_found");
  });

  it("assigns tags case-insensitively and keeps the given order", async () => {
    const { write } = await workspace();
    await createTag(write, "Zeta");
    await createTag(write, "Eta");
    const customer = await createCustomer(write, { provided_id: "ordered", group_tags: ["zeta", "ETA", "Zeta"] });
    expect(customer.group_tags).toEqual(["Zeta", "Eta"]);
  });
});

describe("a tag another access group uses cannot be pulled from under it", () => {
  const tagNamed = async (token: string, name: string) => (await names(token)).includes(name);
  const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

  it("refuses rename and delete (409 group_tag_in_use_elsewhere) while a customer of another group holds it; nothing changes", async () => {
    const a = await workspace();
    const b = await workspace();
    const tag = unique("shared");
    await createTag(a.write, tag);
    const held = await createCustomer(b.write, { provided_id: unique("b-holder"), group_tags: [tag] });

    const rename = await post(a.write, "/api/rename_group_tag/", { name: tag, new_name: `${tag}-renamed` });
    expect(rename.status).toBe(409);
    expect(rename.body.error).toMatchObject({ code: "group_tag_in_use_elsewhere", field: "name" });
    const remove = await post(a.write, "/api/delete_group_tag/", { name: tag.toUpperCase() });
    expect(remove.status).toBe(409);
    expect(remove.body.error.code).toBe("group_tag_in_use_elsewhere");
    expect(await tagNamed(a.write, tag)).toBe(true);
    expect((await getCustomer(b.write, held.provided_id)).body.customer.group_tags).toEqual([tag]);

    // The group whose customers hold it may rename it (no other group uses it) — the control.
    const own = await post(b.write, "/api/rename_group_tag/", { name: tag, new_name: `${tag}-b` });
    expect(own.status).toBe(200);
    expect((await getCustomer(b.write, held.provided_id)).body.customer.group_tags).toEqual([`${tag}-b`]);
  });

  it("refuses while a schedule of another group targets it, and allows it once the schedule is gone", async () => {
    const a = await workspace();
    const b = await workspace();
    const { schema } = await sources();
    const embedId = await dashboard({ panels: [kpi("total", schema, "SELECT 1 AS value")] });
    const tag = unique("scheduled");
    await createTag(b.write, tag);
    const schedule = await post(b.write, "/api/create_report_schedule/", {
      dashboard_embed_id: embedId,
      group_tag: tag,
      cron: "0 9 * * 1",
    });
    expect(schedule.status).toBe(200);

    const rename = await post(a.write, "/api/rename_group_tag/", { name: tag, new_name: `${tag}-x` });
    expect(rename.status).toBe(409);
    expect(rename.body.error.code).toBe("group_tag_in_use_elsewhere");
    const remove = await post(a.write, "/api/delete_group_tag/", { name: tag });
    expect(remove.status).toBe(409);
    const got = await post(b.write, "/api/get_report_schedule/", { id: schedule.body.schedule.id });
    expect(got.body.schedule.group_tag).toBe(tag);

    expect((await post(b.write, "/api/delete_report_schedule/", { id: schedule.body.schedule.id })).status).toBe(200);
    const renamed = await post(a.write, "/api/rename_group_tag/", { name: tag, new_name: `${tag}-x` });
    expect(renamed.status).toBe(200);
    const deleted = await post(a.write, "/api/delete_group_tag/", { name: `${tag}-x` });
    expect(deleted.status).toBe(200);
    expect(await tagNamed(a.write, `${tag}-x`)).toBe(false);
  });

  it("lets a group rename and delete a tag only its own customers and schedules use (the control)", async () => {
    const a = await workspace();
    const tag = unique("own");
    await createTag(a.write, tag);
    const holder = await createCustomer(a.write, { provided_id: unique("a-holder"), group_tags: [tag] });
    expect((await post(a.write, "/api/rename_group_tag/", { name: tag, new_name: `${tag}-2` })).status).toBe(200);
    expect((await post(a.write, "/api/delete_group_tag/", { name: `${tag}-2` })).status).toBe(200);
    expect((await getCustomer(a.write, holder.provided_id)).body.customer.group_tags).toEqual([]);
  });

  it("still answers 404 group_tag_not_found for an unknown tag", async () => {
    const a = await workspace();
    const res = await post(a.write, "/api/delete_group_tag/", { name: unique("never") });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("group_tag_not_found");
  });
});
