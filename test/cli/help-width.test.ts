import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.ts";
import { buildProgram } from "../../src/cli/program.ts";
import { Registry } from "../../src/engine/registry/registry.ts";
import { pipelines } from "../../src/pipelines/index.ts";

/** Every command's --help text, by its command path, as printed off a terminal. */
function allHelpTexts(): Map<string, string> {
  let out = "";
  const io: CliIo = {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      out += t;
    },
    cwd: "/",
    env: {},
    readStdin: async () => Buffer.from(""),
    isTTY: false,
  };
  const { program } = buildProgram(io, new Registry(pipelines));
  const texts = new Map<string, string>();
  const walk = (cmd: Command, names: string[]) => {
    out = "";
    cmd.outputHelp();
    texts.set(["tidemark", ...names].join(" "), out);
    for (const sub of cmd.commands) walk(sub, [...names, sub.name()]);
  };
  walk(program, []);
  return texts;
}

describe("--help texts", () => {
  it("fit an 80-column terminal, every command's", () => {
    const texts = allHelpTexts();
    expect(texts.size).toBeGreaterThan(30);
    for (const [command, text] of texts) {
      const long = text.split("\n").filter((line) => line.length > 80);
      expect(long, command).toEqual([]);
    }
  });

  it("name an option's default once", () => {
    for (const [command, text] of allHelpTexts()) {
      expect(text, command).not.toMatch(/\(default \S+\) \(default: /);
    }
  });
});
