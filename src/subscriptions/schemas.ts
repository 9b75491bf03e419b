import { z } from "@hono/zod-openapi";
import { ScheduleSchema } from "../schedules/schemas";
import { TimeZone } from "../view/presentation";

/**
 * Fields that would name a recipient: a subscription always goes to the token's own
 * address, so a body naming another is refused rather than ignored.
 */
const ADDRESS_FIELDS = ["email", "emails", "recipient", "recipients", "user_email", "to", "cc", "bcc", "address"];

export const SubscriptionBody = z
  .object({
    frequency: z.enum(["daily", "weekly", "monthly"]).openapi({ description: "`weekly`: on Mondays; `monthly`: on the 1st." }),
    hour: z.number().int().min(0).max(23).openapi({ description: "Hour of the day (0–23), wall-clock time in `timezone`." }),
    timezone: TimeZone,
  })
  .catchall(z.unknown())
  .superRefine((body, ctx) => {
    for (const key of Object.keys(body)) {
      const named = ADDRESS_FIELDS.includes(key.toLowerCase()) || (typeof body[key] === "string" && /@/.test(body[key] as string));
      if (named)
        ctx.addIssue({ code: "custom", path: [key], message: "the recipient is always the address the embed token was minted for" });
    }
  })
  .openapi("SubscriptionRequest");

export const SubscriptionIdParams = z.object({
  embedId: z.string().openapi({ param: { name: "embedId", in: "path" } }),
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});
export const EmbedIdParams = z.object({ embedId: z.string().openapi({ param: { name: "embedId", in: "path" } }) });

export { ScheduleSchema as SubscriptionSchema };
export type SubscriptionInput = z.infer<typeof SubscriptionBody>;
