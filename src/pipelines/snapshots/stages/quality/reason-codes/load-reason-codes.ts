import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { z } from "zod";
import { REASON_CODES, type ReasonCode, type ReasonStage, stageOf } from "./reason-code.ts";

/** Where the catalogue lives inside the package. */
export const REASON_CODES_RELATIVE_PATH = path.join("docs", "etl", "reason_codes.yaml");

/** One entry of docs/etl/reason_codes.yaml. */
export interface ReasonCodeEntry {
  stage: ReasonStage;
  description: string;
}

const fileSchema = z.object({
  version: z.literal(1),
  codes: z.record(
    z.string().regex(/^[A-Z][A-Z0-9_]*$/),
    z.object({ stage: z.enum(["config", "gate", "dq", "row"]), description: z.string().min(1) }),
  ),
});

/**
 * The package root holding docs/: found by walking up from this module, so it works from
 * `src/pipelines/snapshots/stages/quality/reason-codes/` (tsx) and from the built dist/ alike
 * (the package ships docs/).
 */
export function findReasonCodesFile(from: string = fileURLToPath(import.meta.url)): string {
  let dir = path.dirname(from);
  for (let i = 0; i < 8; i++) {
    const candidate = path.join(dir, REASON_CODES_RELATIVE_PATH);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`reason code catalogue ${REASON_CODES_RELATIVE_PATH} not found above ${from}`);
}

/** Parses and checks a catalogue: every code the program emits must be there, with its stage. */
export function parseReasonCodes(text: string, where: string): Map<ReasonCode, ReasonCodeEntry> {
  // Parsed once per run: zod's compiled fast path would cost more than it saves.
  const parsed = fileSchema.safeParse(parse(text), { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${where}: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
  }
  const out = new Map<ReasonCode, ReasonCodeEntry>();
  const missing: string[] = [];
  for (const code of REASON_CODES) {
    const entry = parsed.data.codes[code];
    if (!entry) {
      missing.push(code);
      continue;
    }
    if (entry.stage !== stageOf(code)) {
      throw new Error(`${where}: ${code}: stage is ${entry.stage}, expected ${stageOf(code)}`);
    }
    out.set(code, entry);
  }
  if (missing.length > 0) throw new Error(`${where}: missing reason codes: ${missing.join(", ")}`);
  return out;
}

let cached: Map<ReasonCode, ReasonCodeEntry> | undefined;

/** The shipped catalogue, loaded once per process; throws if it is missing or incomplete. */
export function loadReasonCodes(): Map<ReasonCode, ReasonCodeEntry> {
  if (!cached) {
    const file = findReasonCodesFile();
    cached = parseReasonCodes(readFileSync(file, "utf8"), file);
  }
  return cached;
}
