// The sign-in form: the admin token goes to POST /console/session as JSON, never into a URL;
// what comes back is an HttpOnly cookie the script cannot read, and the page reloads signed in.

export function startSignIn(form: HTMLFormElement): void {
  const token = form.querySelector("input") as HTMLInputElement;
  const error = form.querySelector(".error") as HTMLElement;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const response = await fetch("/console/session", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ admin_token: token.value }),
    });
    if (response.ok) {
      token.value = "";
      location.reload();
      return;
    }
    const answer = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    error.textContent =
      answer.error?.code === "invalid_admin_token"
        ? "That is not the admin token."
        : answer.error?.code === "rate_limited"
          ? `Too many wrong tries. ${answer.error.message ?? ""}`
          : (answer.error?.message ?? `Signing in failed (${response.status}).`);
    token.setAttribute("aria-invalid", "true");
    token.focus();
  });
}
