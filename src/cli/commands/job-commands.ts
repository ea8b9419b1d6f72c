import path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { stringify } from "yaml";
import { NotFoundError, UsageError } from "../../engine/errors.ts";
import type { JobService } from "../../engine/jobs/job-service.ts";
import { readYamlFile } from "../../infra/config/load-config.ts";
import { demoDisabledReason, isDemoFolder } from "../../infra/demo/demo-folder.ts";
import { jsonValue } from "../option-parsers.ts";
import type { CliSession } from "../session.ts";
import { writeUserFile } from "../write-user-file.ts";
import { describeJob, listJobs, withReason } from "./job-list.ts";
import { describeJobType, listJobTypes } from "./job-type-docs.ts";

interface ParamsOptions {
  params?: unknown;
  paramsFile?: string;
}

function readParams(session: CliSession, opts: ParamsOptions): unknown {
  if (opts.params !== undefined && opts.paramsFile !== undefined) {
    throw new UsageError("give either --params or --params-file, not both");
  }
  if (opts.paramsFile !== undefined)
    return readYamlFile(path.resolve(session.io.cwd, opts.paramsFile)) ?? {};
  return opts.params;
}

/** `--jitter <seconds>`: 0 to 86400. */
function jitterSeconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 86_400) {
    throw new InvalidArgumentError(
      `expected seconds from 0 to 86400, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

/** The job service; with `name`, a lookup of that job (refused, writing nothing, if none exist). */
async function jobService(session: CliSession, name?: string): Promise<JobService> {
  if (name !== undefined && (await session.nothingStoredYet())) {
    throw new NotFoundError(`unknown job ${JSON.stringify(name)}`);
  }
  const runtime = await session.runtime();
  const { JobService } = await import("../../engine/jobs/job-service.ts");
  return new JobService(runtime.db, runtime.registry, runtime.clock);
}

/** `tidemark job ls | show | add | update | enable | disable | rm | import | export | types | describe`. */
export function registerJobCommands(program: Command, session: CliSession): void {
  const job = program
    .command("job")
    .description("manage jobs (named, scheduled instances of a job type)");
  registerJobReadCommands(job, session);
  registerJobAddCommand(job, session);
  registerJobUpdateCommand(job, session);
  registerJobStateCommands(job, session);
  registerJobFileCommands(job, session);
}

/** `job ls | show | types | describe`: what is stored and what can be. */
function registerJobReadCommands(job: Command, session: CliSession): void {
  job
    .command("ls")
    .description("list jobs, when each fires next and how its last run went")
    .option("--json", "machine-readable output")
    .action((opts: { json?: boolean }) => listJobs(session, opts.json ?? false));

  job
    .command("show <name>")
    .description("show one job")
    .option("--json", "machine-readable output")
    .action(async (name: string, opts: { json?: boolean }) => {
      const record = await (await jobService(session, name)).get(name);
      const { dataDir } = await session.config();
      const reason = demoDisabledReason(dataDir, record);
      if (opts.json) return session.printJson({ ...record, ...withReason(reason) });
      describeJob(session, record, dataDir);
    });

  job
    .command("types")
    .description("list the job types of every registered pipeline")
    .option("--json", "machine-readable output (with each type's params as JSON Schema)")
    .action((opts: { json?: boolean }) => listJobTypes(session, opts.json ?? false));

  job
    .command("describe <type>")
    .description("a job type's params (types, defaults, descriptions) and a ready example")
    .option("--json", "machine-readable output (params as JSON Schema)")
    .action((name: string, opts: { json?: boolean }) =>
      describeJobType(session, name, opts.json ?? false),
    );
}

/** `job add`: params validated before the database is opened. */
function registerJobAddCommand(job: Command, session: CliSession): void {
  job
    .command("add <name>")
    .description("add a job")
    .requiredOption("--type <type>", "job type, e.g. books.run (see: tidemark job types)")
    .option("--params <json>", "params as JSON", jsonValue)
    .option("--params-file <file>", "params from a YAML or JSON file")
    .option("--schedule <cron>", "cron expression, e.g. '*/5 * * * *'")
    .option("--timezone <tz>", "IANA time zone of the schedule", "UTC")
    .option(
      "--jitter <seconds>",
      "fire up to this many seconds after each occurrence (random, per process)",
      jitterSeconds,
    )
    .option("--disabled", "add it disabled")
    .addHelpText(
      "after",
      "\nA job type's params, with defaults and a ready example:\n  tidemark job describe <type>",
    )
    .action(
      async (
        name: string,
        opts: ParamsOptions & {
          type: string;
          schedule?: string;
          timezone: string;
          jitter?: number;
          disabled?: boolean;
        },
      ) => {
        const params = readParams(session, opts) ?? {};
        // Validated before the database is opened: a rejected command writes nothing.
        const { parseJobSpec } = await import("../../engine/jobs/job-validation.ts");
        const spec = parseJobSpec(
          session.registry,
          {
            name,
            type: opts.type,
            params,
            schedule: opts.schedule ?? null,
            timezone: opts.timezone,
            enabled: !opts.disabled,
            ...(opts.jitter ? { jitter: opts.jitter } : {}),
          },
          `job ${name}`,
        );
        await (await jobService(session)).add(spec);
        session.print(`Added job ${name} (${opts.type})`);
      },
    );
}

/** `job update`: changes only what is given. */
function registerJobUpdateCommand(job: Command, session: CliSession): void {
  job
    .command("update <name>")
    .description("change a job's type, params, schedule or time zone")
    .option("--type <type>", "new job type")
    .option("--params <json>", "new params as JSON (replaces all params)", jsonValue)
    .option("--params-file <file>", "new params from a YAML or JSON file")
    .option("--schedule <cron>", "new cron expression")
    .option("--no-schedule", "remove the schedule")
    .option("--timezone <tz>", "new IANA time zone")
    .option("--jitter <seconds>", "new schedule jitter (0 removes it)", jitterSeconds)
    .action(
      async (
        name: string,
        opts: ParamsOptions & {
          type?: string;
          schedule?: string | false;
          timezone?: string;
          jitter?: number;
        },
      ) => {
        const params = readParams(session, opts);
        const { type, schedule, timezone, jitter } = opts;
        if ([type, params, schedule, timezone, jitter].every((v) => v === undefined)) {
          throw new UsageError(
            `job update ${name}: nothing to change; give --type, --params, --params-file, --schedule, --no-schedule, --timezone or --jitter`,
          );
        }
        if (opts.type) session.registry.jobType(opts.type);
        const service = await jobService(session, name);
        await service.update(name, {
          type: opts.type,
          params,
          schedule: opts.schedule === false ? null : opts.schedule,
          timezone: opts.timezone,
          jitter: opts.jitter,
        });
        session.print(`Updated job ${name}`);
      },
    );
}

/** `job enable | disable | rm`. */
function registerJobStateCommands(job: Command, session: CliSession): void {
  for (const [verb, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    job
      .command(`${verb} <name>`)
      .description(`${verb} a job's schedule`)
      .action(async (name: string) => {
        const job = await (await jobService(session, name)).update(name, { enabled });
        session.print(`${enabled ? "Enabled" : "Disabled"} job ${name}`);
        if (enabled && isDemoFolder((await session.config()).dataDir)) {
          const pipeline = job.type.split(".")[0];
          session.print(
            `This is the demo's folder: its config points at no fake, so ${name} now reaches the real service when it runs. Point it at the fake first (tidemark fake ${pipeline} prints the variables).`,
          );
        }
      });
  }

  job
    .command("rm <name>")
    .description("delete a job (its run history stays)")
    .option("--yes", "confirm the deletion")
    .action(async (name: string, opts: { yes?: boolean }) => {
      if (!opts.yes) throw new UsageError(`refusing to delete job ${name} without --yes`);
      await (await jobService(session, name)).remove(name);
      session.print(`Deleted job ${name}`);
    });
}

/** `job import | export`: jobs as YAML. */
function registerJobFileCommands(job: Command, session: CliSession): void {
  job
    .command("import <file>")
    .description("add or replace the jobs of a YAML file (all or nothing)")
    .action(async (file: string) => {
      const where = path.resolve(session.io.cwd, file);
      const document = readYamlFile(where);
      const results = await (await jobService(session)).import(document, where);
      for (const r of results) session.print(`${r.action} ${r.name}`);
      session.print(`Imported ${results.length} job(s) from ${file}`);
    });

  job
    .command("export")
    .description("print every job as YAML (the format job import reads)")
    .option("-o, --output <file>", "write to a file instead of stdout")
    .action(async (opts: { output?: string }) => {
      const text = stringify(await (await jobService(session)).export());
      if (opts.output) {
        writeUserFile(path.resolve(session.io.cwd, opts.output), text);
        session.print(`Wrote ${opts.output}`);
      } else {
        session.io.out(text);
      }
    });
}
