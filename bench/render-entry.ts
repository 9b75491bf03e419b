// Bundled for Node by bench/render.mjs: the dashboard pipeline (customer + version lookup,
// panel queries, server-side rendering) against local D1 through wrangler's platform proxy.
import { eq, sql } from "drizzle-orm";
import { customers } from "../src/db/schema";
import { createDatabase } from "../src/db/client";
import { forgetDrawnCharts } from "../src/dashboards/charts";
import { runPanels } from "../src/data/query-runner";
import { DashboardDefinition } from "../src/dashboards/definition";
import { renderDashboard } from "../src/dashboards/render";
import { renderForCustomer, saveVersion, createOrReplaceDashboard, tagVersion, newest } from "../src/dashboards/service";

export {
  forgetDrawnCharts,
  eq,
  customers,
  sql,
  createDatabase,
  runPanels,
  DashboardDefinition,
  renderDashboard,
  renderForCustomer,
  saveVersion,
  createOrReplaceDashboard,
  tagVersion,
  newest,
};
