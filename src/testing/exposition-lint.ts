/**
 * The naming rules `promtool check metrics` applies (Prometheus's promlint), plus one of ours,
 * checked on Prometheus text exposition so tests need no promtool binary.
 */

/** One metric family as the exposition text declares it. */
interface Family {
  name: string;
  type: string;
  help: string | undefined;
  labelNames: Set<string>;
}

/** Unit words and their base unit (promlint's table). */
const UNITS: Record<string, string> = {
  amperes: "amperes",
  bytes: "bytes",
  celsius: "celsius",
  grams: "grams",
  joules: "joules",
  kelvin: "kelvin",
  meters: "meters",
  metres: "metres",
  seconds: "seconds",
  volts: "volts",
  minutes: "seconds",
  hours: "seconds",
  days: "seconds",
  weeks: "seconds",
  kelvins: "kelvin",
  fahrenheit: "celsius",
  rankine: "celsius",
  inches: "meters",
  yards: "meters",
  miles: "meters",
  bits: "bytes",
  calories: "joules",
  pounds: "grams",
  ounces: "grams",
};
const UNIT_PREFIXES = [
  "pico",
  "nano",
  "micro",
  "milli",
  "centi",
  "deci",
  "deca",
  "hecto",
  "kilo",
  "kibi",
  "mega",
  "mibi",
  "giga",
  "gibi",
  "tera",
  "tebi",
  "peta",
  "pebi",
];
const UNIT_ABBREVIATIONS = [
  "s",
  "ms",
  "us",
  "ns",
  "sec",
  "b",
  "kb",
  "mb",
  "gb",
  "tb",
  "pb",
  "m",
  "h",
  "d",
];
const TYPE_WORDS = ["counter", "gauge", "summary", "histogram", "gauge_histogram"];
const CAMEL_CASE = /[a-z][A-Z]/;
/** Section signs and seed numbers are the project's internal references, not a user's words. */
const INTERNAL_REFERENCE = /§|\bseed\s*\d/i;

const hasWord = (name: string, word: string) =>
  name.includes(`_${word}_`) || name.endsWith(`_${word}`);

function parse(text: string): Family[] {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) {
      f = { name, type: "untyped", help: undefined, labelNames: new Set() };
      families.set(name, f);
    }
    return f;
  };
  for (const line of text.split("\n")) {
    const meta = /^# (HELP|TYPE) ([^ ]+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name = "", rest = ""] = meta;
      if (kind === "HELP") family(name).help = rest;
      else family(name).type = rest;
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s/.exec(line);
    if (!sample?.[1]) continue;
    const sampleName = sample[1];
    // Histogram and summary samples carry a suffix their family's name does not.
    const owner =
      families.get(sampleName) ??
      families.get(sampleName.replace(/_(bucket|sum|count|created)$/, "")) ??
      family(sampleName);
    for (const m of (sample[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)) {
      if (m[1]) owner.labelNames.add(m[1]);
    }
  }
  return [...families.values()];
}

function unitProblem(name: string): string | undefined {
  for (const word of name.split("_")) {
    for (const prefix of ["", ...UNIT_PREFIXES]) {
      if (!word.startsWith(prefix)) continue;
      const base = UNITS[word.slice(prefix.length)];
      if (base === undefined) continue;
      return word === base ? undefined : `use base unit "${base}" instead of "${word}"`;
    }
  }
  return undefined;
}

function problemsOf(f: Family): string[] {
  const out: string[] = [];
  const { name, type } = f;
  const lower = name.toLowerCase();
  if (!f.help) out.push("no help text");
  else if (INTERNAL_REFERENCE.test(f.help)) {
    out.push("help text should not use internal references (§, seed numbers)");
  }
  if (type === "counter" && !name.endsWith("_total")) {
    out.push('counter metrics should have "_total" suffix');
  }
  if (type !== "counter" && type !== "untyped" && name.endsWith("_total")) {
    out.push('non-counter metrics should not have "_total" suffix');
  }
  const unit = unitProblem(name);
  if (unit) out.push(unit);
  for (const word of TYPE_WORDS) {
    if (hasWord(lower, word)) out.push(`metric name should not include type '${word}'`);
  }
  if (name.includes(":")) out.push("metric names should not contain ':'");
  if (CAMEL_CASE.test(name)) {
    out.push("metric names should be written in 'snake_case' not 'camelCase'");
  }
  for (const label of f.labelNames) {
    if (CAMEL_CASE.test(label)) {
      out.push(`label names should be written in 'snake_case' not 'camelCase' (${label})`);
    }
  }
  if (UNIT_ABBREVIATIONS.some((a) => hasWord(lower, a))) {
    out.push("metric names should not contain abbreviated units");
  }
  if (type !== "untyped") {
    const histogram = type === "histogram";
    const summary = type === "summary";
    if (!histogram && name.endsWith("_bucket")) {
      out.push('non-histogram metrics should not have "_bucket" suffix');
    }
    if (!histogram && !summary && /_(count|sum)$/.test(name)) {
      out.push('non-histogram and non-summary metrics should not have "_count" or "_sum" suffix');
    }
    if (!histogram && f.labelNames.has("le")) {
      out.push('non-histogram metrics should not have "le" label');
    }
    if (!summary && f.labelNames.has("quantile")) {
      out.push('non-summary metrics should not have "quantile" label');
    }
  }
  return out;
}

/**
 * Problems in Prometheus exposition `text`, one `name: problem` line each (empty when clean):
 * promtool's rules (HELP present, `_total` exactly on counters, base units, no abbreviated units
 * or type names, snake_case, histogram/summary suffixes and labels) and no internal references
 * in HELP.
 */
export function lintExposition(text: string): string[] {
  return parse(text).flatMap((f) => problemsOf(f).map((p) => `${f.name}: ${p}`));
}
