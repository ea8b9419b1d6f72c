import { type ResourceLimits, Worker } from "node:worker_threads";

/**
 * Starts a worker module of this folder. From the compiled build it is `<name>.js`; from the
 * TypeScript sources (tsx, tests) a worker does not inherit the loader, and `--import` in a
 * worker's execArgv is applied too late for its entry module, so a tiny bootstrap registers tsx
 * and then imports `<name>.ts`.
 */
export function startWorker(
  name: "csv-worker" | "xlsx-worker",
  resourceLimits: ResourceLimits,
): Worker {
  if (!import.meta.url.endsWith(".ts")) {
    return new Worker(new URL(`./${name}.js`, import.meta.url), { resourceLimits });
  }
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, resourceLimits });
}
