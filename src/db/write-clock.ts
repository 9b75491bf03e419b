/**
 * When this isolate last opened a D1 session on the primary (a write, or a read that must
 * see one). Caches kept at the location (the viewer's reads, src/dashboards/viewer-cache.ts)
 * ignore what they stored before it, so the isolate that changed a customer, its mapping,
 * access group or theme sees the change at once; other isolates within their cache's TTL.
 */
let lastPrimaryAt = 0;

export function notePrimarySession(): void {
  // Strictly later than anything stored in this millisecond.
  lastPrimaryAt = Math.max(Date.now(), lastPrimaryAt + 1);
}

export function primarySessionAt(): number {
  return lastPrimaryAt;
}
