import { registerAdminRoutes } from "./admin/routes";
import { registerAlertRoutes } from "./alerts/routes";
import { registerBlueprintRoutes } from "./blueprints/routes";
import { registerConsoleRoutes } from "./console/routes";
import { registerCustomerRoutes } from "./customers/routes";
import { registerEmbedRoutes } from "./dashboards/embed-routes";
import { registerDashboardAdminRoutes } from "./dashboards/admin-routes";
import { registerDashboardListRoutes } from "./dashboards/list-routes";
import { registerDashboardsAsCodeRoutes } from "./dashboards-as-code/routes";
import { registerDeliveryRoutes } from "./delivery/routes";
import { registerEmbedTokenRoutes } from "./embed-tokens/routes";
import { registerGroupTagRoutes } from "./group-tags/routes";
import { registerLegacyRoutes } from "./legacy/routes";
import { registerQueryCacheRoutes } from "./query-cache/routes";
import { registerReportBuilderPageRoutes } from "./report-builder/page-routes";
import { registerReportRoutes } from "./report-builder/routes";
import { registerScheduleRoutes } from "./schedules/routes";
import { registerSubscriptionRoutes } from "./subscriptions/routes";
import { registerThemeRoutes } from "./themes/routes";
import { registerUnsubscribeRoutes } from "./unsubscribe/routes";
import { registerWebhookRoutes } from "./webhooks/routes";
import { handleError, newApp, requestContext, routeNotFound } from "./http/request-pipeline";
import { hostOriginsOnPages } from "./http/host-origins";
import { registerDevRoutes } from "./dev/routes";
import { renderDocs } from "./http/docs";
import { documentedPaths, registerSecuritySchemes } from "./http/openapi";
import { DEV_ROUTES_PATH, devOnly } from "./dev/dev-only";

const openApiInfo = {
  openapi: "3.1.0",
  info: {
    title: "Customer Management and Dashboard Delivery API",
    version: "1.0.0",
    description:
      "Keep your customers (tenants) and hand each one a token that opens embedded dashboards with its own data. " +
      "Authenticate with `Service-Authorization: Token <API_KEY>`; every response carries `success` (1 or 0).",
    // The service is not open source: its API is offered to the vendors who run it under their agreement.
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  },
};

/**
 * The OpenAPI document of the app as served from `origin` (its `servers`): what /openapi.json
 * answers, and what scripts/openapi-document.mjs writes for the lint without a server.
 */
export function openApiDocument(app: ReturnType<typeof createApp>, origin: string) {
  return documentedPaths(
    app.getOpenAPI31Document({
      ...openApiInfo,
      // The origin the document was asked of, as embed URLs and e-mailed links are built (wrangler.toml has no base URL).
      servers: [{ url: origin, description: "This service" }],
    }),
  );
}

/** The whole HTTP surface: each capability registers its own routes. */
export function createApp() {
  const app = newApp();
  app.use("*", requestContext);
  // Framed pages learn which host they may post to from the frame-ancestors they were sent with.
  app.use("*", hostOriginsOnPages);
  // Ahead of every route: the /_dev/ ones exist only with DEV_ROUTES on.
  app.use(DEV_ROUTES_PATH, devOnly);
  app.onError(handleError);
  app.notFound(routeNotFound(app));

  registerSecuritySchemes(app.openAPIRegistry);

  registerCustomerRoutes(app);
  registerGroupTagRoutes(app);
  registerBlueprintRoutes(app);
  registerLegacyRoutes(app);
  registerAdminRoutes(app);
  registerDashboardAdminRoutes(app);
  registerDashboardListRoutes(app);
  registerDashboardsAsCodeRoutes(app);
  registerEmbedTokenRoutes(app);
  registerEmbedRoutes(app);
  registerQueryCacheRoutes(app);
  registerDeliveryRoutes(app);
  registerScheduleRoutes(app);
  registerAlertRoutes(app);
  registerSubscriptionRoutes(app);
  registerUnsubscribeRoutes(app);
  registerReportRoutes(app);
  registerReportBuilderPageRoutes(app);
  registerWebhookRoutes(app);
  registerThemeRoutes(app);
  registerConsoleRoutes(app);

  registerDevRoutes(app);

  app.get("/health", (c) => c.json({ success: 1, status: "ok" }));
  app.get("/openapi.json", (c) => c.json(openApiDocument(app, new URL(c.req.url).origin)));
  app.get("/docs", (c) => c.html(renderDocs(openApiDocument(app, new URL(c.req.url).origin))));
  app.get("/", (c) => c.redirect("/docs"));
  return app;
}
