/**
 * The keys a zod schema accepts at a path, for "did you mean" on a mistyped key. Reads zod 4's
 * schema definitions (`_zod.def`); wrappers (optional, default, nullable, pipe, …) are looked
 * through, unions give the keys of every option.
 */
interface SchemaLike {
  _zod: { def: Def };
}

interface Def {
  type: string;
  shape?: Record<string, SchemaLike>;
  innerType?: SchemaLike;
  in?: SchemaLike;
  out?: SchemaLike;
  valueType?: SchemaLike;
  element?: SchemaLike;
  options?: SchemaLike[];
}

const WRAPPERS = new Set(["optional", "default", "prefault", "nullable", "readonly", "catch"]);

function unwrap(schema: SchemaLike): SchemaLike[] {
  const def = schema._zod?.def;
  if (!def) return [];
  if (WRAPPERS.has(def.type) && def.innerType) return unwrap(def.innerType);
  if (def.type === "pipe" && def.in) return unwrap(def.in);
  if (def.type === "union" && def.options) return def.options.flatMap(unwrap);
  return [schema];
}

/** Object keys the schema accepts at `path` (empty when unknown). */
export function knownKeysAt(schema: unknown, path: ReadonlyArray<PropertyKey>): string[] {
  let nodes = unwrap(schema as SchemaLike);
  for (const key of path) {
    nodes = nodes.flatMap((n) => {
      const def = n._zod.def;
      if (def.type === "object" && def.shape) {
        const child = def.shape[String(key)];
        return child ? unwrap(child) : [];
      }
      if (def.type === "record" && def.valueType) return unwrap(def.valueType);
      if (def.type === "array" && def.element) return unwrap(def.element);
      return [];
    });
  }
  return [...new Set(nodes.flatMap((n) => Object.keys(n._zod.def.shape ?? {})))];
}

/** Edit distance (insertions, deletions, substitutions, and swaps of neighbours). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known key closest to `key`, when it is close enough to be a typo. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const candidate of known) {
    const dist = distance(key.toLowerCase(), candidate.toLowerCase());
    if (dist < bestDistance) {
      best = candidate;
      bestDistance = dist;
    }
  }
  return best;
}
