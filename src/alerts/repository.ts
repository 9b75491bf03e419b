/**
 * Alerts are rows of the scheduler's table (kind 'alert'): their data access is the
 * schedules' own, with the kind given. What only alerts read — evaluations — lives there
 * too, next to the fan-out that writes them.
 */
export {
  deleteSchedule as deleteAlert,
  insertSchedule as insertAlert,
  recentEvaluations,
  recentRuns,
  recentRunJobCounts,
  scheduleById as alertById,
  schedulesOfAccessGroup,
  updateSchedule as updateAlert,
  visibleSchedule,
  type ScheduleRow as AlertRow,
} from "../schedules/repository";
export { unsubscribedOf } from "../unsubscribe/repository";
export { secretExists as webhookSecretExists } from "../webhooks/repository";
