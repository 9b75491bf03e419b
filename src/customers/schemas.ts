import { z } from "@hono/zod-openapi";
import { Email, jsonObject64KiB, plainText } from "../http/fields";
import { Locale, ThemeReference, TimeZone } from "../view/presentation";

export const ProvidedId = plainText(1, 256).openapi({
  description: "The vendor's own identifier of the customer (1–256 characters, case-sensitive).",
  example: "acme",
});

const Name = plainText(1, 256);

export const Properties = jsonObject64KiB().openapi({
  description: "Key-value pairs, available as variables in dashboards (at most 64 KiB as JSON).",
  example: { region: "EU" },
});

export const Mapping = z
  .record(
    z.string().regex(/^[0-9]{1,15}$/, "keys must be schema ids (digit strings)"),
    z.union([z.number().int().positive(), z.string().min(1).max(256)]),
  )
  .openapi({
    description: "Schema id → data source (its numeric id, as a number or digit string, or its provided_id).",
    // The keys' pattern, as the server checks it (OpenAPI 3.1: JSON Schema's propertyNames).
    ...({ propertyNames: { type: "string", pattern: "^[0-9]{1,15}$" } } as object),
    example: { "1": "demo" },
  });

const Emails = z
  .array(Email)
  .max(100)
  .openapi({ example: ["ops@acme.example"] });
const GroupTagNames = z
  .array(z.string().min(1).max(64))
  .max(100)
  .openapi({ example: ["vip"] });
const LevelName = z.string().min(1).max(256);

export const CreateCustomerBody = z
  .object({
    provided_id: ProvidedId,
    name: Name.optional().openapi({ description: "Display name; defaults to provided_id." }),
    mapping: Mapping.nullable().optional(),
    is_demo_group: z.boolean().optional(),
    emails: Emails.optional(),
    group_tags: GroupTagNames.optional(),
    hierarchy_level_name: LevelName.optional().openapi({ description: "An existing level; the root level when omitted." }),
    parent_provided_id: ProvidedId.optional(),
    properties: Properties.nullable().optional(),
    theme: ThemeReference.nullable().optional().openapi({ description: "A theme of the access group; inherited by sub-customers." }),
    locale: Locale.nullable()
      .optional()
      .openapi({ type: ["string", "null"] }),
    timezone: TimeZone.nullable()
      .optional()
      .openapi({ type: ["string", "null"] }),
  })
  .openapi("CreateCustomerRequest");

export const UpdateCustomerBody = z
  .object({
    provided_id: ProvidedId.openapi({ description: "Identifies the customer to update." }),
    new_provided_id: ProvidedId.optional(),
    name: Name.optional(),
    mapping: Mapping.nullable().optional().openapi({ description: "Replaces the mapping; null clears it." }),
    is_demo_group: z.boolean().optional(),
    emails: Emails.optional(),
    group_tags: GroupTagNames.optional(),
    hierarchy_level_name: LevelName.optional(),
    parent_provided_id: ProvidedId.nullable().optional().openapi({ description: "null removes the parent." }),
    properties: Properties.nullable().optional().openapi({ description: "Replaces the properties; null clears them." }),
    theme: ThemeReference.nullable().optional().openapi({ description: "A theme of the access group; null clears it (inherit)." }),
    locale: Locale.nullable()
      .optional()
      .openapi({ type: ["string", "null"], description: "null clears it (inherit)." }),
    timezone: TimeZone.nullable()
      .optional()
      .openapi({ type: ["string", "null"], description: "null clears it (inherit)." }),
  })
  .openapi("UpdateCustomerRequest");

export const ProvidedIdBody = z.object({ provided_id: ProvidedId }).openapi("GetCustomerRequest");
export const CurrentTokenBody = z
  .object({ current_token: z.string().min(1).max(256).openapi({ description: "The customer's current token." }) })
  .openapi("CustomerTokenRequest");

export const CustomerSchema = z
  .object({
    token: z.string().openapi({ description: "64 lowercase hex characters; authorises embedded dashboards." }),
    name: z.string(),
    provided_id: z.string(),
    emails: z.array(z.string()),
    group_tags: z.array(z.string()),
    hierarchy_level: z.string(),
    access_group: z.string().nullable(),
    is_demo_group: z.boolean(),
    properties: z.record(z.string(), z.unknown()).nullable(),
    computed_properties: z.record(z.string(), z.unknown()),
    parent_schema_datasource_mapping: z.record(z.string(), z.string()).nullable(),
    computed_parent_schema_datasource_mapping: z.record(z.string(), z.string()),
    theme: z.string().nullable().openapi({ description: "The customer's own theme (null: inherited)." }),
    locale: z.string().nullable(),
    timezone: z.string().nullable(),
    computed_theme: z
      .string()
      .nullable()
      .openapi({ description: "Own, else the nearest ancestor's, else the access group's default theme; null is the built-in theme." }),
    computed_locale: z.string().openapi({ description: "Own, else the nearest ancestor's, else en-US." }),
    computed_timezone: z.string().openapi({ description: "Own, else the nearest ancestor's, else UTC." }),
  })
  .openapi("Customer");

export const ListFilters = z.object({
  parent_provided_id: z.string().optional().openapi({ description: "Only children of this customer." }),
  hierarchy_level_name: z.string().optional().openapi({ description: "Only customers at this level." }),
});

export const PagedListQuery = ListFilters.extend({
  page: z.coerce.number().int().min(1).default(1).openapi({ description: "From 1." }),
  page_size: z.coerce.number().int().min(1).max(1000).default(100).openapi({ description: "1–1000." }),
});

export type CreateCustomerInput = z.infer<typeof CreateCustomerBody>;
export type UpdateCustomerInput = z.infer<typeof UpdateCustomerBody>;
export type Customer = z.infer<typeof CustomerSchema>;
export type CustomerMapping = z.infer<typeof Mapping>;
