import { type PanelModule, type PanelServices, runOrderChart, summaryNumber } from "tidemark";
import { packageCount, recentPackages } from "../repos/package-repo.ts";

/** `/ui/pipelines/registry-feed`: packages kept, changes per run, the latest packages. */
export const registryPanel: PanelModule = {
  async view(services: PanelServices) {
    const { db } = services.services;
    const recent = await recentPackages(db, 20);
    const runs = await services.recentRuns({ jobType: "registry-feed.follow", limit: 30 });
    const cursor = runs.find((r) => r.summary?.cursor_after !== undefined)?.summary?.cursor_after;
    return {
      blocks: [
        {
          kind: "stats",
          items: [
            { label: "packages", value: await packageCount(db) },
            { label: "feed position", value: typeof cursor === "number" ? cursor : "not started" },
          ],
        },
        runOrderChart({
          title: "Packages per run",
          runs,
          series: [
            { label: "changed", value: (r) => summaryNumber(r, "changed") },
            { label: "unchanged", value: (r) => summaryNumber(r, "unchanged_skipped") },
            { label: "removed", value: (r) => summaryNumber(r, "removed") },
          ],
          empty: "No runs yet.",
        }),
        {
          kind: "table",
          title: "Recently changed packages",
          columns: ["package", "latest", "versions", "license", "modified"],
          rows: recent.map((p) => [p.name, p.latest, p.version_count, p.license, p.modified_at]),
          empty: "No packages yet.",
        },
      ],
    };
  },
};
