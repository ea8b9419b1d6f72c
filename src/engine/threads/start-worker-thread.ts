import { type ResourceLimits, Worker } from "node:worker_threads";

/**
 * Starts the worker-thread module `<name>` that sits beside the calling module (`from` is the
 * caller's `import.meta.url`). From the bundled build, every module is in dist/ and worker
 * modules are entries of their own (scripts/build.ts ENTRY_POINTS): `<name>.js` beside the
 * caller's chunk. From the TypeScript sources (tsx, tests) a worker does not inherit the
 * loader, and `--import` in a worker's execArgv is applied too late for its entry module, so a
 * tiny bootstrap registers tsx and then imports `<name>.ts`.
 */
export function startWorkerThread(
  from: string,
  name: string,
  resourceLimits: ResourceLimits,
): Worker {
  if (!from.endsWith(".ts")) {
    return new Worker(new URL(`./${name}.js`, from), { resourceLimits });
  }
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, from).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, resourceLimits });
}
