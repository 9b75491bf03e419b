import { eq, type SQL, sql } from "drizzle-orm";
import { byId, customerChain } from "../../customers/repository";
import type { Database } from "../../db/client";
import { customers, jobs } from "../../db/schema";
import { themesOfCustomerGroup } from "../../themes/repository";
import { type Presentation, resolvePresentation } from "../../view/presentation";
import type { JobRequest } from "../schemas";

/**
 * The view a job's e-mail wears when this attempt drew no page: a file export, a retry that
 * finds its file stored. Resolved as the capture's own
 * view is (src/view/presentation.ts): the job's theme and locale where it names them, else
 * the customer's, else its access group's default theme — so the e-mail is not framed in the
 * built-in light colors around a capture in a dark theme. Its two reads ride in a batch the
 * attempt makes anyway (the claim: `jobViewReads`); alone they are one D1 round trip more.
 */
export async function storedJobView(db: Database, customerId: number, request: JobRequest): Promise<Presentation> {
  return viewOfReads(request, await db.batch(customerViewReads(db, byId(customerId))));
}

/** The reads of `storedJobView` for job `jobId`'s customer, to put in the claim's batch (the customer known only from the row). */
export function jobViewReads(db: Database, jobId: string) {
  return customerViewReads(db, eq(customers.id, sql`(SELECT ${jobs.customerId} FROM ${jobs} WHERE ${jobs.id} = ${jobId})`));
}

/** What `jobViewReads` (or the reads of a job's creation) answered. */
export type ViewRows = readonly [ChainRows, ThemeRows];
type ChainRows = Awaited<ReturnType<typeof customerChain>>;
type ThemeRows = Awaited<ReturnType<typeof themesOfCustomerGroup>>;

/** The e-mail's view from the rows read. */
export function viewOfReads(request: JobRequest, [chain, themes]: ViewRows): Presentation {
  return resolvePresentation(request.presentation ?? {}, chain, themes);
}

/** The reads of the view of the customer `customerWhere` selects: its chain and its access group's themes. */
export function customerViewReads(db: Database, customerWhere: SQL) {
  return [customerChain(db, customerWhere), themesOfCustomerGroup(db, customerWhere)] as const;
}
