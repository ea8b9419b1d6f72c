import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { UsageError } from "../../engine/errors.ts";
import { interruptSignal } from "../../engine/runs/interrupt-signal.ts";
import { pipelineList } from "../output/pipeline-list.ts";
import type { CliSession } from "../session.ts";

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65_535) {
    throw new InvalidArgumentError(`expected a port number 0-65535, got ${JSON.stringify(value)}`);
  }
  return n;
}

const LISTEN_ERRORS = new Set(["EADDRINUSE", "EACCES", "EADDRNOTAVAIL"]);

/** The listen error code (in use, not allowed, no such address) in an error or its causes. */
function listenErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && LISTEN_ERRORS.has(code)) return code;
    e = e.cause;
  }
  return undefined;
}

/** A value as one shell word: quoted when it holds anything but safe characters. */
function shellWord(value: string): string {
  return /^[\w./:@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** `tidemark fake <pipeline>`: a pipeline's fake source in the foreground, until Ctrl-C. */
export function registerFakeCommand(program: Command, session: CliSession): void {
  program
    .command("fake <pipeline>")
    .description(
      "start a pipeline's local fake source in the foreground and print the variables that point Tidemark at it",
    )
    .addHelpText("after", () => pipelineList(session, (p) => p.fake?.description))
    .option("--port <n>", "port to listen on (default: a free one)", port)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .action(async (name: string, opts: { port?: number; host: string }) => {
      const pipeline = session.registry.pipeline(
        name,
        (p) => p.fake !== undefined,
        "pipeline with a fake",
      );
      const fake = pipeline.fake!;
      const config = await session.config();
      const stop = interruptSignal();
      const running = await fake
        .start({
          port: opts.port ?? 0,
          host: opts.host,
          dataDir: config.dataDir,
          print: (line) => session.print(line),
        })
        .catch((err: unknown) => {
          stop.dispose();
          const code = listenErrorCode(err);
          if (code === undefined) throw err;
          // A taken port or a bad address is the user's option, not a failed job: exit 2.
          const where = `${opts.host}:${opts.port ?? 0}`;
          throw new UsageError(`--port/--host: cannot listen on ${where}: ${code}`, { cause: err });
        });
      try {
        session.print(`Fake for ${pipeline.name}: ${fake.description}`);
        session.print("Point Tidemark at it (in another shell):");
        // A fake without variables of its own (snapshots) works in the data dir: the other
        // shell must use the same one.
        const env =
          Object.keys(running.env).length > 0
            ? running.env
            : { TIDEMARK_DATA_DIR: shellWord(config.dataDir) };
        for (const [key, value] of Object.entries(env)) session.print(`  export ${key}=${value}`);
        for (const hint of running.hints) session.print(`Then: ${hint}`);
        session.print("Press Ctrl-C to stop.");
        await new Promise<void>((resolve) => {
          if (stop.signal.aborted) resolve();
          stop.signal.addEventListener("abort", () => resolve(), { once: true });
        });
      } finally {
        stop.dispose();
        await running.close();
      }
    });
}
