import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { registerReportDevRoutes } from "./builder-floor";
import { registerChartRoutes } from "./charts";
import { registerDataLoadDevRoutes } from "./data-load";
import { registerDevFloorRoutes } from "./floors";
import { registerOutboxRoutes } from "./outbox";
import { registerShareLinkDevRoutes } from "./share-links";
import { registerSourceFloorRoutes } from "./source-floor";

/**
 * Every `/_dev/` route in one place: benchmark floors, the builder's statement and its floor,
 * the data sources' panels against their bare drivers, the local outbox, forgetting drawn charts, a share link without a report,
 * a CSV's rows into a local D1 (`data load`). They exist only with DEV_ROUTES on
 * (./dev-only.ts guards the path ahead of every route) and are not part of the API.
 */
export function registerDevRoutes(app: OpenAPIHono<AppEnv>): void {
  registerDevFloorRoutes(app);
  registerReportDevRoutes(app);
  registerOutboxRoutes(app);
  registerChartRoutes(app);
  registerShareLinkDevRoutes(app);
  registerDataLoadDevRoutes(app);
  registerSourceFloorRoutes(app);
}
