import type { PipelineDefinition } from "../pipeline-definition.ts";

/** Is `value` shaped like a pipeline definition (name, description, job types)? */
export function isPipelineDefinition(value: unknown): value is PipelineDefinition {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.name === "string" &&
    v.name.length > 0 &&
    typeof v.description === "string" &&
    Array.isArray(v.jobTypes)
  );
}

/** Every name a pipeline claims: itself, its job types, queues, command paths and api routes. */
function claims(p: PipelineDefinition): string[] {
  return [
    `pipeline ${p.name}`,
    ...p.jobTypes.map((t) => `job type ${t.name}`),
    ...(p.queueHandlers ?? []).map((h) => `queue ${h.name}`),
    ...(p.commands ?? []).map((c) => `command "${c.path.join(" ")}"`),
    ...(p.routes ?? [])
      .filter((r) => r.mount === "api")
      .map((r) => `route ${r.method.toUpperCase()} /api${r.path}`),
  ];
}

/**
 * The first name `plugin` claims that a registered pipeline already has, as "job type x.run is
 * already registered by pipeline books", or undefined when there is none.
 */
export function clashWith(
  registered: readonly PipelineDefinition[],
  plugin: PipelineDefinition,
): string | undefined {
  const owner = new Map<string, string>();
  for (const p of registered) for (const c of claims(p)) owner.set(c, p.name);
  for (const c of claims(plugin)) {
    const by = owner.get(c);
    if (by !== undefined) return `${c} is already registered by pipeline ${by}`;
  }
  return undefined;
}
