/** A duration in its largest whole unit: `45s`, `12m`, `3h`, `2d`. */
function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** How long ago an ISO time was: `3h ago`. */
export function ago(iso: string, now: Date): string {
  return `${span(now.getTime() - Date.parse(iso))} ago`;
}

/** How far ahead an ISO time is: `in 5m`. */
export function fromNow(iso: string, now: Date): string {
  return `in ${span(Date.parse(iso) - now.getTime())}`;
}
