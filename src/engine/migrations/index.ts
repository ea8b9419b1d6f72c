import { lazyMigrations } from "../../infra/db/lazy-migrations.ts";
import type { MigrationScope } from "../../infra/db/migrator.ts";

/** The engine's migrations; they run before every pipeline's. */
export const engineMigrations: MigrationScope = {
  name: "engine",
  migrations: lazyMigrations({
    "0001-engine-core": () => import("./0001-engine-core.ts"),
    "0002-queue": () => import("./0002-queue.ts"),
    "0003-scheduler": () => import("./0003-scheduler.ts"),
    "0004-lease-owner": () => import("./0004-lease-owner.ts"),
    "0005-cursors": () => import("./0005-cursors.ts"),
    "0006-rate-limits": () => import("./0006-rate-limits.ts"),
    "0007-lease-token": () => import("./0007-lease-token.ts"),
    "0008-run-request-interrupted": () => import("./0008-run-request-interrupted.ts"),
    "0009-run-progress": () => import("./0009-run-progress.ts"),
    "0010-run-request-retried": () => import("./0010-run-request-retried.ts"),
    "0011-idempotency-keys": () => import("./0011-idempotency-keys.ts"),
    "0012-run-params": () => import("./0012-run-params.ts"),
    "0013-ui-revoked-sessions": () => import("./0013-ui-revoked-sessions.ts"),
    "0014-run-children": () => import("./0014-run-children.ts"),
  }),
};
