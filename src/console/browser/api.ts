// The console's calls: the same /admin/ operations a script with the admin token makes, here
// with the session cookie the browser sends by itself (same origin only; docs/console.md).

export interface ApiFailure {
  code: string;
  message: string;
  field?: string;
}

export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly failure: ApiFailure,
  ) {
    super(failure.message);
  }
}

/** Called when a call finds the session ended: the page goes back to the sign-in form. */
let onSignedOut = (): void => location.reload();
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

export async function admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => ({}))) as { success?: number; error?: ApiFailure };
  if (response.status === 401 && answer.error?.code === "invalid_admin_token") onSignedOut();
  if (!response.ok || answer.success !== 1) {
    throw new AdminError(response.status, answer.error ?? { code: "internal_error", message: `The call answered ${response.status}.` });
  }
  return answer as T;
}
