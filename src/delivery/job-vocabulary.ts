// What a job can be and where it can stand: the words of src/delivery/job-state.ts, kept
// apart because the schema needs them and the state machine needs the schema.

export const JOB_STATUSES = ["queued", "rendering", "sending", "done", "failed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_KINDS = ["screenshot", "report"] as const;
export type JobKind = (typeof JOB_KINDS)[number];
