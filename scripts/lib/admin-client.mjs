/** A tiny client for the /admin/ API, shared by the admin CLI and `npm start`. */
export function adminClient(base, token) {
  return async function request(method, path, body) {
    let response;
    try {
      response = await fetch(`${base.replace(/\/$/, "")}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (error) {
      throw new Error(`Cannot reach ${base} (${error.cause?.code ?? error.message}). Is the service running (npm start)?`);
    }
    return response.json();
  };
}

/**
 * Pushes a dashboard file ({ embed_id, name, definition }): creates or renames the dashboard,
 * saves the definition as its next version and points each tag at it.
 */
export async function pushDashboard(request, file, { tags = [], draft = false } = {}) {
  const dashboard = await request("POST", "/admin/dashboards/", {
    embed_id: file.embed_id,
    name: file.name ?? file.definition?.title ?? file.embed_id,
  });
  if (dashboard.success !== 1) return dashboard;
  const embedId = dashboard.dashboard.embed_id;
  const version = await request("POST", "/admin/dashboard_versions/", { embed_id: embedId, definition: file.definition, draft });
  if (version.success !== 1) return version;
  for (const tag of tags) {
    const tagged = await request("POST", "/admin/dashboard_tags/", {
      embed_id: embedId,
      tag,
      version_number: version.version.version_number,
    });
    if (tagged.success !== 1) return tagged;
  }
  return { success: 1, dashboard: dashboard.dashboard, version: version.version, tags };
}
