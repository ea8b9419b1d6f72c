import { onTestFinished } from "vitest";
import type { RunningFake } from "../engine/registry/pipeline-definition.ts";
import { pipelines } from "../pipelines/index.ts";

/**
 * A built-in pipeline's fake on a free loopback port, keeping its files in `dataDir`; closed
 * when the test finishes.
 */
export async function startPipelineFake(name: string, dataDir: string): Promise<RunningFake> {
  const fake = pipelines.find((p) => p.name === name)?.fake;
  if (!fake) throw new Error(`no pipeline named ${name} has a fake`);
  const running = await fake.start({ port: 0, host: "127.0.0.1", dataDir, print: () => {} });
  onTestFinished(() => running.close());
  return running;
}
