import { customerNotFound } from "../customers/not-found";
import type { Database } from "../db/client";
import { reportNotFound, reportView, type Report } from "./saved-reports";
import * as repo from "./repository";

/** The vendor's API operations on its customers' saved reports (an API token, not a builder token). */

export async function customerReports(db: Database, accessGroupId: number, providedId: string): Promise<Report[]> {
  const [customer, reports] = await db.batch([
    repo.visibleCustomer(db, providedId, accessGroupId),
    repo.customerReports(db, providedId, accessGroupId),
  ]);
  if (customer.length === 0) throw customerNotFound(providedId, "customer_id");
  return reports.map((r) => reportView(r.report));
}

export async function deleteCustomerReport(db: Database, accessGroupId: number, reportId: string): Promise<void> {
  const deleted = await repo.deleteVisibleReport(db, reportId, accessGroupId);
  if (deleted.length === 0) throw reportNotFound(reportId, "report_id");
}
