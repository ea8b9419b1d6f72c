import type { Command } from "commander";
import type { CliServices, CommandArgSpec } from "../engine/registry/command-spec.ts";
import type { PipelineDefinition } from "../engine/registry/pipeline-definition.ts";
import { pipelineServices } from "../engine/runs/pipeline-services.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";

/** What every pipeline command shares: output, exit code, cwd, environment, and the runtime. */
export interface CliBase extends Omit<CliServices, "services"> {
  /** The process's runtime, opened (and migrated) on first use. */
  runtime(): Promise<Runtime>;
}

/** The group at `path` below `root`, created (with `description`) when missing. */
function groupAt(root: Command, path: readonly string[], descriptions: Map<string, string>) {
  let node = root;
  for (let i = 0; i < path.length; i++) {
    const word = path[i]!;
    let next = node.commands.find((c) => c.name() === word);
    if (!next) {
      next = node.command(word);
      const description = descriptions.get(path.slice(0, i + 1).join(" "));
      if (description) next.description(description);
    }
    node = next;
  }
  return node;
}

function argSyntax(a: CommandArgSpec): string {
  const name = a.variadic ? `${a.name}...` : a.name;
  return a.optional || a.variadic ? `[${name}]` : `<${name}>`;
}

/** Adds every pipeline's command descriptors to the commander program. */
export function mountPipelineCommands(
  program: Command,
  pipelines: readonly PipelineDefinition[],
  base: CliBase,
): void {
  for (const pipeline of pipelines) {
    const { runtime: _runtime, ...shared } = base;
    const services: CliServices = {
      ...shared,
      services: async <S>() => pipelineServices<S>(await base.runtime(), pipeline.name),
    };
    const descriptions = new Map(
      (pipeline.commandGroups ?? []).map((g) => [g.path.join(" "), g.description]),
    );
    for (const g of pipeline.commandGroups ?? []) groupAt(program, g.path, descriptions);
    for (const spec of pipeline.commands ?? []) {
      const parent = groupAt(program, spec.path.slice(0, -1), descriptions);
      const args = spec.args ?? [];
      const cmd = parent
        .command([spec.path.at(-1)!, ...args.map(argSyntax)].join(" "))
        .description(spec.description);
      for (const o of spec.options ?? []) cmd.option(o.flags, o.description, o.default);
      cmd.action(async (...values: unknown[]) => {
        const named: Record<string, string | string[] | undefined> = {};
        args.forEach((a, i) => {
          named[a.name] = values[i] as string | string[] | undefined;
        });
        const options = (values[args.length] ?? {}) as Record<string, unknown>;
        await spec.action({ args: named, options }, services);
      });
    }
  }
}
