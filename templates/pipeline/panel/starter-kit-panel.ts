import { type PanelModule, type PanelServices, runOrderChart, summaryNumber } from "tidemark";
import { latestRecords, recordCounts } from "../repos/record-repo.ts";

/** The dashboard's page of the pipeline (`/ui/pipelines/starter-kit`): plain data, no HTML. */
export const starterKitPanel: PanelModule = {
  async view(services: PanelServices) {
    const { db } = services.services;
    const counts = await recordCounts(db);
    const latest = await latestRecords(db, 20);
    const runs = await services.recentRuns({ jobType: "starter-kit.sync", limit: 30 });
    return {
      blocks: [
        {
          kind: "stats",
          items: [
            { label: "records", value: counts.total },
            { label: "open", value: counts.open },
            { label: "last update", value: latest[0]?.updated_at ?? "none yet" },
          ],
        },
        runOrderChart({
          title: "Records per run",
          runs,
          series: [
            { label: "changed", value: (r) => summaryNumber(r, "changed") },
            { label: "unchanged", value: (r) => summaryNumber(r, "unchanged_skipped") },
          ],
          empty: "No runs yet: tidemark run <job>",
        }),
        {
          kind: "table",
          title: "Latest records",
          columns: ["id", "title", "status", "updated"],
          rows: latest.map((r) => [
            r.id,
            r.title,
            { text: r.status, tone: r.status === "open" ? "ok" : "muted" },
            r.updated_at,
          ]),
          empty: "No records yet.",
        },
      ],
    };
  },
};
