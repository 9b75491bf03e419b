import { z } from "@hono/zod-openapi";
import { and, asc, eq, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { accessGroups, customers } from "../db/schema";
import { adminOperation, successSchema } from "../http/openapi";

// Customers of every access group, found by provided_id or name: what the console's "Preview
// as customer" combobox searches and "Check all customers" walks (docs/console.md). The
// /api/ operations see one access group at a time; the admin sees them all.

export const MAX_CUSTOMERS_PER_PAGE = 1000;

export const searchCustomersOperation = adminOperation({
  method: "get",
  path: "/admin/customers/",
  operationId: "adminSearchCustomers",
  tags: ["Administration"],
  summary: "Customers of every access group, by provided_id or name (a search), one page at a time",
  description:
    "`search` matches a part of `provided_id` or `name` (case-insensitive, ASCII); `access_group` keeps one access group's customers. " +
    "Ordered by `provided_id`; `next_offset` is null on the last page.",
  database: "session",
  query: z.object({
    search: z.string().max(256).optional(),
    access_group: z.string().max(256).optional().openapi({ description: "An access group's name." }),
    limit: z.coerce.number().int().min(1).max(MAX_CUSTOMERS_PER_PAGE).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  }),
  response: successSchema({
    customers: z.array(
      z.object({
        provided_id: z.string(),
        name: z.string(),
        access_group: z.string().nullable(),
        locale: z.string().nullable().openapi({ description: "Its own locale (null: inherited or the default)." }),
        timezone: z.string().nullable(),
      }),
    ),
    total: z.number().int(),
    next_offset: z.number().int().nullable(),
  }),
});

/** `%`, `_` and `\` are the LIKE pattern's own: matched as themselves. */
const likePart = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function searchCustomers(db: Database, query: { search?: string; access_group?: string; limit: number; offset: number }) {
  const conditions: SQL[] = [];
  const words = query.search?.trim();
  if (words) {
    const pattern = likePart(words);
    const matches = or(sql`${customers.providedId} LIKE ${pattern} ESCAPE '\\'`, sql`${customers.name} LIKE ${pattern} ESCAPE '\\'`);
    if (matches) conditions.push(matches);
  }
  if (query.access_group !== undefined) conditions.push(eq(accessGroups.name, query.access_group));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const [rows, [{ total }]] = await db.batch([
    db
      .select({
        providedId: customers.providedId,
        name: customers.name,
        // Aliased: both tables have a `name` column.
        accessGroup: sql<string | null>`${accessGroups.name}`.as("access_group_name"),
        locale: customers.locale,
        timezone: customers.timezone,
      })
      .from(customers)
      .leftJoin(accessGroups, eq(accessGroups.id, customers.accessGroupId))
      .where(where)
      .orderBy(asc(customers.providedId))
      .limit(query.limit)
      .offset(query.offset),
    db
      .select({ total: sql<number>`count(*)` })
      .from(customers)
      .leftJoin(accessGroups, eq(accessGroups.id, customers.accessGroupId))
      .where(where),
  ]);
  const end = query.offset + rows.length;
  return {
    customers: rows.map((r) => ({
      provided_id: r.providedId,
      name: r.name,
      access_group: r.accessGroup,
      locale: r.locale,
      timezone: r.timezone,
    })),
    total,
    next_offset: end < total ? end : null,
  };
}
