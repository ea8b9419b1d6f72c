const UNITS = ["KiB", "MiB", "GiB", "TiB"];

/** A byte count for people: `512 B`, `1.5 KiB`, `80.1 MiB`, `2.0 GiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
