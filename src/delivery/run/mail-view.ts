import { byId, customerChain } from "../../customers/repository";
import type { Database } from "../../db/client";
import { themesOfCustomerGroup } from "../../themes/repository";
import { type Presentation, resolvePresentation } from "../../view/presentation";
import type { JobRequest } from "../schemas";

/**
 * The view a job's e-mail wears when this attempt drew no page: a file export, a retry that
 * finds its file stored. Resolved as the capture's own
 * view is (src/view/presentation.ts): the job's theme and locale where it names them, else
 * the customer's, else its access group's default theme — so the e-mail is not framed in the
 * built-in light colors around a capture in a dark theme. One D1 round trip.
 */
export async function storedJobView(db: Database, customerId: number, request: JobRequest): Promise<Presentation> {
  const [chain, themes] = await db.batch([customerChain(db, byId(customerId)), themesOfCustomerGroup(db, byId(customerId))]);
  return resolvePresentation(request.presentation ?? {}, chain, themes);
}
