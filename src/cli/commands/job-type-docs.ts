import type { JobType } from "../../engine/registry/pipeline-definition.ts";
import { fitTable, wrapWords } from "../output/fit-table.ts";
import { terminalWidth } from "../output/fit-text.ts";
import type { CliSession } from "../session.ts";

/** `job types`: every job type with its pipeline and what it does. */
export async function listJobTypes(session: CliSession, json: boolean): Promise<void> {
  const types = session.registry.pipelines.flatMap((p) =>
    p.jobTypes.map((t) => ({ pipeline: p.name, type: t as JobType })),
  );
  if (json) {
    const { paramsJsonSchema } = await import("../output/params-doc.ts");
    return session.printJson(
      types.map(({ pipeline, type }) => ({
        name: type.name,
        pipeline,
        description: type.description,
        params: paramsJsonSchema(type),
        example: type.example,
      })),
    );
  }
  if (types.length === 0) return session.print("No pipeline is registered yet.");
  session.print(
    fitTable(
      ["TYPE", "PIPELINE", "DESCRIPTION"],
      types.map(({ pipeline, type }) => [type.name, pipeline, type.description]),
      terminalWidth(session.io, 80),
    ),
  );
  session.print();
  session.print("Params, defaults and a ready example: tidemark job describe <type>");
}

/** `job describe <type>`: params with types, defaults and descriptions, and an example. */
export async function describeJobType(
  session: CliSession,
  name: string,
  json: boolean,
): Promise<void> {
  const type = session.registry.jobType(name);
  const pipeline = session.registry.pipelines.find((p) => p.jobTypes.includes(type))?.name;
  const doc = await import("../output/params-doc.ts");
  const schema = doc.paramsJsonSchema(type);
  if (json) {
    return session.printJson({
      name: type.name,
      pipeline,
      description: type.description,
      params: schema,
      example: type.example,
    });
  }
  const width = terminalWidth(session.io, 80);
  session.print(wrapWords(`${type.name}: ${type.description}`, width).join("\n"));
  if (pipeline) session.print(`pipeline: ${pipeline}`);
  session.print();
  const params = doc.paramDocs(schema);
  if (params.length === 0) {
    session.print("Params: none.");
  } else {
    session.print("Params:");
    const described = params.some((p) => p.description);
    // Two columns go to the indent below.
    const table = fitTable(
      ["PARAM", "TYPE", "REQUIRED", "DEFAULT", ...(described ? ["DESCRIPTION"] : [])],
      params.map((p) => [
        p.path,
        p.type,
        p.required ? "yes" : "",
        p.default === undefined ? "" : doc.defaultText(p.default),
        ...(described ? [p.description ?? ""] : []),
      ]),
      width - 2,
    );
    session.print(indent(table, "  "));
  }
  const example = type.example as Record<string, unknown> | undefined;
  if (!example) return;
  const jobName = type.name.replace(/\./g, "-");
  session.print();
  session.print("Example params file (params.yaml):");
  session.print();
  session.print(indent(doc.exampleYaml(example), "  "));
  session.print();
  session.print("Add a job with it:");
  session.print(`  tidemark job add ${jobName} --type ${type.name} --params-file params.yaml`);
  session.print("or with the params inline:");
  session.print(
    `  tidemark job add ${jobName} --type ${type.name} --params ${doc.exampleParamsArg(example)}`,
  );
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((l) => (l === "" ? l : `${prefix}${l}`))
    .join("\n");
}
