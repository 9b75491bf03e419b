// Bundled for Node by bench/render.mjs: the dashboard pipeline (customer + version lookup,
// panel queries, server-side rendering) against local D1 through wrangler's platform proxy.
import { eq, sql } from "drizzle-orm";
import { customers } from "../src/db/schema";
import { createDatabase } from "../src/db/client";
import { forgetDrawnCharts } from "../src/dashboards/charts";
import { runPanels } from "../src/data/query-runner";
import { DashboardDefinition } from "../src/dashboards/definition";
import { renderDashboard } from "../src/dashboards/render";
import { BUILTIN_PRESENTATION } from "../src/view/presentation";
import { newest, renderForCustomer } from "../src/dashboards/customer-dashboard";
import { createOrReplaceDashboard, saveVersion, tagVersion } from "../src/dashboards/versions";

export {
  forgetDrawnCharts,
  eq,
  customers,
  sql,
  createDatabase,
  runPanels,
  DashboardDefinition,
  renderDashboard,
  BUILTIN_PRESENTATION,
  renderForCustomer,
  saveVersion,
  createOrReplaceDashboard,
  tagVersion,
  newest,
};
