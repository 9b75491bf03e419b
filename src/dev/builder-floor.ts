import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { config } from "../config";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { jsonBody } from "../http/json-body";
import { bindingOfKind } from "../data/sources/kinds";
import { runPostgres } from "../data/sources/postgres";
import type { PanelQuery } from "../data/sources/types";
import { readOnlyProblem } from "../lib/sql-read-only";
import { verifyBuilderToken } from "../tokens/builder";
import { ReportQuery } from "../report-builder/query";
import { compiledFor } from "../report-builder/queries";

/**
 * Development routes (DEV_ROUTES only: dev/dev-only.ts) for `npm run bench:builder` (not part of the API): the statement a
 * builder query compiles to for its customer, and that statement run straight through the
 * data source's binding — the floor the builder's query route is measured against in the
 * same run. Here, not in src/http, because src/http imports no capability. Both need the
 * admin token (dev-only.ts); the builder token whose query is compiled comes in
 * `X-Builder-Token`.
 */
/** The floor route's body: a statement as `/_dev/report-sql/` answers it. */
const FloorStatement = z.object({ binding: z.string(), kind: z.enum(["d1", "postgres"]), sql: z.string(), params: z.array(z.unknown()) });

export function registerReportDevRoutes(app: OpenAPIHono<AppEnv>): void {
  app.post("/_dev/report-sql/:embedId", jsonBody, async (c) => {
    const claims = await verifyBuilderToken(c.env, c.req.header("X-Builder-Token") ?? "");
    if (!claims || claims.bpe !== c.req.param("embedId"))
      throw new ApiError("invalid_embed_token", "A builder token for this blueprint is needed.");
    const query = ReportQuery.parse(JSON.parse(await c.req.text()));
    const { compiled, source } = await compiledFor({ db: c.get("db"), env: c.env, claims }, query);
    return c.json({ success: 1, sql: compiled.sql, params: compiled.params, binding: source.binding, kind: source.kind });
  });

  app.post("/_dev/floor/report-sql", jsonBody, async (c) => {
    const { binding, kind, sql, params } = FloorStatement.parse(JSON.parse(await c.req.text()));
    // Even here only a read, and only on a data source's database (never the service's own).
    const target = bindingOfKind(c.env, kind, binding);
    if (!target || readOnlyProblem(sql, [kind === "d1" ? "sqlite" : "postgres"]))
      throw new ApiError("validation_error", "Only a read-only statement on a data source binding.");
    if (kind === "d1")
      return c.json({
        success: 1,
        rows: (
          await (target as D1Database)
            .prepare(sql)
            .bind(...params)
            .all()
        ).results,
      });
    // PostgreSQL as everywhere else: the data plane's READ ONLY transaction with its timeout.
    const trips = { kind: "postgres" as const, trips: 0, connections: 0 };
    const limits = { timeoutMs: config(c.env).QUERY_TIMEOUT_MS, rowLimit: Number.MAX_SAFE_INTEGER };
    const floor = { panelId: "floor", sql, params: params as PanelQuery["params"] };
    const result = (await runPostgres(target as Hyperdrive, [floor], limits, trips)).get("floor");
    if (result?.status !== "ok") {
      const reason = result?.status === "failed" ? result.message : undefined;
      throw new ApiError("panel_data_unavailable", `The statement failed: ${reason ?? "no answer"}.`);
    }
    return c.json({ success: 1, rows: result.rows });
  });
}
