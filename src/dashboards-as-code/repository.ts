import { count, eq, inArray } from "drizzle-orm";
import { byId, byProvidedId, customerChain, customerChains } from "../customers/repository";
import { accessGroups, customers } from "../db/schema";
import { jsonList } from "../db/json-list";
import * as adminRepo from "../admin/repository";
import * as dashboards from "../dashboards/repository";
import { z } from "zod";
import { DashboardDefinition } from "../dashboards/definition";
import type { Database } from "../db/client";
import { sha256Hex } from "../lib/crypto";
import { themesOfCustomerGroup } from "../themes/repository";

/** An unsaved definition kept for its preview link, in KV until the link expires. */
const StoredPreview = z.object({
  embed_id: z.string(),
  name: z.string(),
  definition: DashboardDefinition,
  // The presentation asked for (theme by name, locale, time zone); each absent: the customer's computed one.
  presentation: z.object({ theme: z.string().optional(), locale: z.string().optional(), timezone: z.string().optional() }).optional(),
});
export type StoredPreview = z.infer<typeof StoredPreview>;

/** KV keys hold only the hash of the preview id the signed token carries. */
const previewKey = async (previewId: string) => `preview:${await sha256Hex(previewId)}`;

export async function storePreview(kv: KVNamespace, previewId: string, preview: StoredPreview, ttlSeconds: number): Promise<void> {
  await kv.put(await previewKey(previewId), JSON.stringify(preview), { expirationTtl: ttlSeconds });
}

export async function storedPreview(kv: KVNamespace, previewId: string): Promise<StoredPreview | null> {
  const value = await kv.get(await previewKey(previewId));
  return value === null ? null : StoredPreview.parse(JSON.parse(value));
}

/** A customer of any access group by provided_id, with its ancestors (for computed fields). */
export const chainByProvidedId = (db: Database, providedId: string) => customerChain(db, byProvidedId(providedId));
export const chainById = (db: Database, id: number) => customerChain(db, byId(id));
export const existingSchemas = adminRepo.existingSchemas;
export const existingDashboards = dashboards.existingDashboards;
export const dataSources = dashboards.dataSources;
/** The themes of the access group of the customer with this provided_id, or this id. */
export const themesOfProvidedId = (db: Database, providedId: string) => themesOfCustomerGroup(db, byProvidedId(providedId));
export const themesOfCustomerId = (db: Database, id: number) => themesOfCustomerGroup(db, byId(id));

/** The chains of the customers with these provided_ids (any access group), by provided_id. */
export const chainsByProvidedIds = (db: Database, providedIds: string[]) =>
  customerChains(db, inArray(customers.providedId, jsonList(providedIds)));

/** The chains of a page of an access group's customers (by provided_id, as GET /admin/customers/ pages them). */
export const chainsOfGroupPage = (db: Database, group: string, page: { limit: number; offset: number }) =>
  customerChains(
    db,
    eq(customers.accessGroupId, db.select({ id: accessGroups.id }).from(accessGroups).where(eq(accessGroups.name, group))),
    page,
  );

/** The access group of that name with its number of customers; none when there is no such group. */
export const groupCustomerCount = (db: Database, group: string) =>
  db
    .select({ total: count(customers.id) })
    .from(accessGroups)
    .leftJoin(customers, eq(customers.accessGroupId, accessGroups.id))
    .where(eq(accessGroups.name, group))
    .groupBy(accessGroups.id);
