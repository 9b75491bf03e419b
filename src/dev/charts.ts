import type { OpenAPIHono } from "@hono/zod-openapi";
import { forgetDrawnCharts } from "../dashboards/charts";
import type { AppEnv } from "../http/context";

/**
 * Forgets the charts drawn in this isolate (DEV_ROUTES only), so `npm run bench:delivery` can
 * measure a first drawing next to a repeated one.
 */
export function registerChartRoutes(app: OpenAPIHono<AppEnv>): void {
  app.post("/_dev/charts/forget", (c) => {
    return c.json({ success: 1, forgotten: forgetDrawnCharts() });
  });
}
