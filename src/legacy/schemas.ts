import { z } from "@hono/zod-openapi";
import { Mapping, Properties, ProvidedId } from "../customers/schemas";
import { plainText } from "../http/fields";

export const UserGroupBody = z
  .object({
    user_group_id: ProvidedId.openapi({ description: "The customer's provided_id." }),
    name: plainText(1, 256).optional(),
    mapping: Mapping.nullable().optional(),
    is_demo_group: z.boolean().optional(),
    properties: Properties.nullable().optional(),
  })
  .openapi("UserGroupRequest");

export const UserGroupSchema = z
  .object({
    team_id: z.number().int(),
    token: z.string(),
    name: z.string(),
    provided_id: z.string(),
    is_demo_group: z.boolean(),
    properties: z.record(z.string(), z.unknown()).nullable(),
  })
  .openapi("UserGroup");

export const UpdatedUserGroupSchema = UserGroupSchema.extend({
  api_environment_tag: z.enum(["Customer", "Testing"]),
}).openapi("UpdatedUserGroup");

const Attributes = z
  .record(z.string(), z.unknown())
  .refine((value) => new TextEncoder().encode(JSON.stringify(value)).byteLength <= 64 * 1024, "must be at most 64 KiB as JSON")
  .openapi({ description: "Free key-value mapping; `header` and `footer` hold HTML for report e-mails." });

const EndUserProvidedId = plainText(1, 256);
const TeamId = z.number().int().positive().openapi({ description: "The user group's team_id." });

export const CreateEndUserBody = z
  .object({ provided_id: EndUserProvidedId, email: z.email().max(320), customer_id: TeamId, attributes: Attributes.optional() })
  .openapi("CreateEndUserRequest");

export const UpdateEndUserBody = z
  .object({ provided_id: EndUserProvidedId, customer_id: TeamId, email: z.email().max(320).optional(), attributes: Attributes.optional() })
  .openapi("UpdateEndUserRequest");

export const EndUserSchema = z
  .object({ provided_id: z.string(), email: z.string(), attributes: z.string().openapi({ description: "A JSON string." }) })
  .openapi("EndUser");

export type UserGroupInput = z.infer<typeof UserGroupBody>;
export type CreateEndUserInput = z.infer<typeof CreateEndUserBody>;
export type UpdateEndUserInput = z.infer<typeof UpdateEndUserBody>;
