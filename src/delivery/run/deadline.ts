// A capture's steps each wait no longer than the capture's deadline (epoch ms).

/** Thrown when a step of a capture is still running at its deadline. */
export class PastDeadline extends Error {}

/**
 * `work`, or a PastDeadline failure once `deadline` (epoch ms) passes first. The work is not
 * stopped, only no longer waited for: `abandoned` gets it if it still succeeds (to release
 * what it holds).
 */
export async function beforeDeadline<T>(work: Promise<T>, deadline: number, what: string, abandoned?: (late: T) => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late = false;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        late = true;
        reject(new PastDeadline(`${what} did not come within the capture's deadline`));
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  work.then(
    (value) => late && abandoned?.(value),
    () => undefined,
  );
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
