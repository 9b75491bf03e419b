// What a delivery job can be and where it can stand: the words of src/delivery/job-state.ts,
// kept on the ground floor because the schema's CHECK lists need them (src/db imports no
// capability) and the state machine needs the schema.

export const JOB_STATUSES = ["queued", "rendering", "sending", "done", "failed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_KINDS = ["screenshot", "report"] as const;
export type JobKind = (typeof JOB_KINDS)[number];
