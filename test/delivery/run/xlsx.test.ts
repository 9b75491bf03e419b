import readXlsxFile from "read-excel-file/universal";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createCustomer, unique, workspace } from "../../helpers/api";
import { dashboard, seedOrders, sources } from "../../helpers/dashboards";
import { fetchDownload, sentMails, waitForJob } from "../../helpers/delivery";
import { base64Bytes, parseMime } from "../../helpers/mime";

let ws: Awaited<ReturnType<typeof workspace>>;
let embedId: string;
let providedId: string;

beforeAll(async () => {
  await seedOrders(); // alpha: 2026-01-05 Seats 100, 2026-02-05 Storage 250
  ws = await workspace();
  const { schema, demo } = await sources();
  providedId = (
    await createCustomer(ws.write, {
      provided_id: unique("xl"),
      name: "Alpha",
      emails: ["xl@alpha.example"],
      properties: { orders_of: "alpha" },
      mapping: { [schema]: demo },
    })
  ).provided_id;
  const mine = "FROM orders WHERE customer_id = {{customer.properties.orders_of}}";
  embedId = await dashboard(
    {
      title: "Sheets",
      panels: [
        { id: "intro", type: "text", title: "Hello", text: "Hi", layout: { x: 0, y: 0, w: 12, h: 1 } },
        {
          id: "orders",
          type: "table",
          title: "Orders by day",
          schema_id: schema,
          sql: `SELECT day, product, amount ${mine} ORDER BY day`,
          layout: { x: 4, y: 1, w: 8, h: 4 },
        },
        {
          id: "revenue",
          type: "kpi",
          title: "Revenue",
          schema_id: schema,
          sql: `SELECT SUM(amount) AS value ${mine}`,
          layout: { x: 0, y: 1, w: 4, h: 2 },
        },
      ],
    },
    ["production"],
  );
});

const open = (bytes: Uint8Array) => readXlsxFile(new Blob([bytes]));

function checkWorkbook(sheets: Awaited<ReturnType<typeof open>>) {
  // One sheet per data panel, named by its title, in reading order; the text panel has none.
  expect(sheets.map((s) => s.sheet)).toEqual(["Revenue", "Orders by day"]);
  expect(sheets[0].data).toEqual([["value"], [350]]);
  const [header, first, second] = sheets[1].data;
  expect(header).toEqual(["day", "product", "amount"]);
  expect(first[0]).toBeInstanceOf(Date);
  expect((first[0] as unknown as Date).toISOString()).toBe("2026-01-05T00:00:00.000Z");
  expect(first.slice(1)).toEqual(["Seats", 100]);
  expect(second.slice(1)).toEqual(["Storage", 250]);
}

describe("dashboards as spreadsheets (xlsx)", () => {
  it("screenshot export_type xlsx: a download whose workbook has a sheet per data panel with typed cells", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ws.write,
      body: { provided_id: providedId, dashboard_embed_id: embedId, export_type: "xlsx" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const file = await fetchDownload(`${res.body.url}?wait=30`);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(file.headers.get("Content-Disposition")).toContain("dashboard_screenshot_download.xlsx");
    checkWorkbook(await open(file.bytes));
  });

  it("refuses an unknown export_type (400) and accepts xlsx (control)", async () => {
    const bad = await call("POST", "/api/dashboard/screenshot", {
      token: ws.write,
      body: { provided_id: providedId, dashboard_embed_id: embedId, export_type: "xls" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "validation_error", field: "export_type" });
    const bad2 = await call("POST", "/api/create_report_schedule/", {
      token: ws.write,
      body: { provided_id: providedId, dashboard_embed_id: embedId, cron: "0 9 * * *", format: "csv" },
    });
    expect(bad2.body.error).toMatchObject({ code: "validation_error", field: "format" });
  });

  it("a schedule with format xlsx e-mails the workbook as an attachment", async () => {
    const created = await call("POST", "/api/create_report_schedule/", {
      token: ws.write,
      body: { provided_id: providedId, dashboard_embed_id: embedId, cron: "0 9 * * *", format: "xlsx" },
    });
    expect(created.body.schedule.format).toBe("xlsx");
    const run = await call("POST", "/api/run_report_schedule/", { token: ws.write, body: { id: created.body.schedule.id } });
    const [jobId] = run.body.run.job_ids;
    expect((await waitForJob(ws.read, jobId, (s) => s === "done" || s === "failed", 60_000)).status).toBe("done");
    const [raw] = await sentMails(jobId);
    const attachment = parseMime(raw).parts.find((p) =>
      p.headers["content-type"]?.startsWith("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    );
    expect(attachment, raw.slice(0, 1500)).toBeTruthy();
    checkWorkbook(await open(base64Bytes(attachment!.body)));
  }, 90_000);
});
