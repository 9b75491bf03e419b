import type { Database } from "../db/client";
import { builderReads, opened, type BuilderRequest } from "./builder-request";
import { datasetDisplayName, datasetsOf } from "./queries";
import { reportView } from "./saved-reports";
import * as repo from "./repository";
import { byId, customerChain } from "../customers/repository";
import { type Presentation, resolvePresentation } from "../view/presentation";
import { themesOfCustomerGroup } from "../themes/repository";

/**
 * What the builder page (page-routes.ts) starts with — the blueprint's name, the customer's,
 * the datasets and the saved reports — in the one batch of a builder request (same checks,
 * same count against the limit).
 */
export async function builderPageData(request: BuilderRequest) {
  const { db, claims } = request;
  const [chain, blueprint, sources, saved, themes] = await db.batch([
    ...builderReads(request),
    repo.blueprintReports(db, claims.bid, claims.cid),
    themesOfCustomerGroup(db, byId(claims.cid)),
  ]);
  const builder = await opened(request, [chain, blueprint, sources]);
  return {
    blueprintName: blueprint[0].name,
    customerName: builder.context.customer.name,
    datasets: datasetsOf(builder.tables, builder.locale).map((d, i) => ({
      ...d,
      display_name: datasetDisplayName(builder.tables[i], builder.locale),
    })),
    reports: saved.map(reportView),
    // The page and its charts in the token's theme, else the customer's (src/view/presentation.ts).
    view: resolvePresentation({ theme: claims.thm, locale: claims.loc, timezone: claims.tz }, chain, themes),
  };
}

/**
 * The view the builder's charts are drawn in (its token's theme, else the customer's): the
 * customer chain and the group's themes, one D1 round trip, read beside the query it draws.
 */
export async function builderView(request: BuilderRequest): Promise<Presentation> {
  const { db, claims } = request;
  const [chain, themes] = await db.batch([customerChain(db, byId(claims.cid)), themesOfCustomerGroup(db, byId(claims.cid))]);
  return resolvePresentation({ theme: claims.thm, locale: claims.loc, timezone: claims.tz }, chain, themes);
}

/** Whether any blueprint has this embed id (the page tells "nothing here" from "not yours"). */
export async function blueprintExists(db: Database, embedId: string): Promise<boolean> {
  return (await repo.blueprintByEmbedId(db, embedId)).length > 0;
}
