/**
 * A first attempt in the API call's background lives at most this long (Workers end
 * `waitUntil` work 30 s after the response); a job it left in `rendering` longer is dead.
 */
export const FIRST_ATTEMPT_LIFETIME_SECONDS = 30;
/** The backstop arrives once the first attempt has ended, one way or the other. */
export const BACKSTOP_DELAY_SECONDS = FIRST_ATTEMPT_LIFETIME_SECONDS + 5;
/**
 * An attempt's capture answers within this many seconds of the attempt's start, its turn at
 * the capture station included, or fails the attempt: even a first attempt then has time
 * left to record its failure and queue the retry itself, instead of being cut off with the
 * API call's background work and left to the backstop.
 */
export const CAPTURE_DEADLINE_SECONDS = FIRST_ATTEMPT_LIFETIME_SECONDS - 6;
