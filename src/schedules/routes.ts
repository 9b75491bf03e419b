import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext, AppEnv } from "../http/context";
import { adminOperation, apiOperation, successSchema } from "../http/openapi";
import { accessScope } from "../customers/scope";
import { CreateScheduleBody, RunSchema, ScheduleIdBody, ScheduleSchema, UpdateScheduleBody } from "./schemas";
import { runNow as runScheduleNow } from "./runner/run-now";
import * as schedules from "./service";

const tags = ["Scheduled reports"];

const create = apiOperation({
  method: "post",
  path: "/api/create_report_schedule/",
  operationId: "createReportSchedule",
  tags,
  summary: "Schedule a dashboard e-mail for one customer or every customer of a group tag",
  description:
    "Exactly one of `provided_id` and `group_tag` (else 400 on `provided_id`). Exactly one of `dashboard_embed_id` and `report_id` (a saved report of the customer `provided_id`; not with `group_tag`). `cron` is wall-clock time in `timezone` (default `UTC`). " +
    "Each slot runs exactly once; after downtime only the most recent missed slot runs. Recipients default to each customer's own `emails` at run time.",
  access: "write",
  database: "primary",
  body: CreateScheduleBody,
  response: successSchema({ schedule: ScheduleSchema }),
});

const list = apiOperation({
  method: "get",
  path: "/api/report_schedules/",
  operationId: "listReportSchedules",
  tags,
  summary: "List the report schedules of the token's access group, oldest first",
  access: "read",
  database: "session",
  response: successSchema({ schedules: z.array(ScheduleSchema) }),
});

const get = apiOperation({
  method: "post",
  path: "/api/get_report_schedule/",
  operationId: "getReportSchedule",
  tags,
  summary: "A report schedule with its last 20 runs, newest first",
  access: "read",
  database: "session",
  notFound: "retry on primary",
  body: ScheduleIdBody,
  response: successSchema({
    schedule: ScheduleSchema,
    unsubscribed: z.array(z.string()).openapi({ description: "Addresses that used an e-mail's unsubscribe link: later runs skip them." }),
    runs: z.array(RunSchema),
  }),
});

const update = apiOperation({
  method: "post",
  path: "/api/update_report_schedule/",
  operationId: "updateReportSchedule",
  tags,
  summary: "Change a report schedule (each given field replaces the stored one)",
  description:
    "Giving `provided_id` or `group_tag` replaces the target (the other becomes null). A new cron, time zone or un-pausing counts from now.",
  access: "write",
  database: "primary",
  body: UpdateScheduleBody,
  response: successSchema({ schedule: ScheduleSchema }),
});

const remove = apiOperation({
  method: "post",
  path: "/api/delete_report_schedule/",
  operationId: "deleteReportSchedule",
  tags,
  summary: "Delete a report schedule and its runs",
  access: "write",
  database: "primary",
  body: ScheduleIdBody,
  response: successSchema({}),
});

const runNow = apiOperation({
  method: "post",
  path: "/api/run_report_schedule/",
  operationId: "runReportSchedule",
  tags,
  summary: "Run a report schedule now (a separate run with trigger `manual`)",
  description: "Starts the run's jobs before answering. Each call counts once against DELIVERY_LIMIT_PER_MINUTE.",
  access: "write",
  database: "primary",
  delivery: true,
  body: ScheduleIdBody,
  response: successSchema({ run: RunSchema }),
});

const AdminSchedule = ScheduleSchema.extend({ access_group_id: z.number().int() }).openapi("AdminReportSchedule");

const adminList = adminOperation({
  method: "get",
  path: "/admin/report_schedules/",
  operationId: "adminListReportSchedules",
  tags: ["Administration"],
  summary: "Every report schedule of every access group, oldest first",
  database: "session",
  response: successSchema({ schedules: z.array(AdminSchedule) }),
});

const adminRun = adminOperation({
  method: "post",
  path: "/admin/run_report_schedule/",
  operationId: "adminRunReportSchedule",
  tags: ["Administration"],
  summary: "Run any report schedule now (trigger `manual`)",
  database: "primary",
  body: ScheduleIdBody,
  response: successSchema({ run: RunSchema }),
});

/** Links in the e-mails point at the origin the schedule was saved through. */
const linkBase = (c: AppContext) => new URL(c.req.url).origin;

export function registerScheduleRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(create, async (c) => {
    const schedule = await schedules.createSchedule(accessScope(c), c.req.valid("json"), linkBase(c));
    return c.json({ success: 1 as const, schedule }, 200);
  });
  app.openapi(list, async (c) => {
    return c.json({ success: 1 as const, schedules: await schedules.listSchedules(accessScope(c)) }, 200);
  });
  app.openapi(get, async (c) => {
    const result = await schedules.getSchedule(accessScope(c), c.req.valid("json").id);
    return c.json({ success: 1 as const, ...result }, 200);
  });
  app.openapi(update, async (c) => {
    const schedule = await schedules.updateSchedule(accessScope(c), c.req.valid("json"), linkBase(c));
    return c.json({ success: 1 as const, schedule }, 200);
  });
  app.openapi(remove, async (c) => {
    await schedules.deleteSchedule(accessScope(c), c.req.valid("json").id);
    return c.json({ success: 1 as const }, 200);
  });
  app.openapi(runNow, async (c) => {
    const { db, accessGroupId } = accessScope(c);
    const { run } = await runScheduleNow(db, c.env, { accessGroupId, id: c.req.valid("json").id });
    return c.json({ success: 1 as const, run }, 200);
  });
  app.openapi(adminList, async (c) => {
    return c.json({ success: 1 as const, schedules: await schedules.listAllSchedules(c.get("db")) }, 200);
  });
  app.openapi(adminRun, async (c) => {
    const { run } = await runScheduleNow(c.get("db"), c.env, { accessGroupId: null, id: c.req.valid("json").id });
    return c.json({ success: 1 as const, run }, 200);
  });
}
