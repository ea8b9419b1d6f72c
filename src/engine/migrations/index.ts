import type { MigrationScope } from "../../infra/db/migrator.ts";

/** The engine's migrations; they run before every pipeline's. */
export const engineMigrations: MigrationScope = {
  name: "engine",
  migrations: async () => ({
    "0001-engine-core": await import("./0001-engine-core.ts"),
    "0002-queue": await import("./0002-queue.ts"),
    "0003-scheduler": await import("./0003-scheduler.ts"),
    "0004-lease-owner": await import("./0004-lease-owner.ts"),
    "0005-cursors": await import("./0005-cursors.ts"),
    "0006-rate-limits": await import("./0006-rate-limits.ts"),
    "0007-lease-token": await import("./0007-lease-token.ts"),
    "0008-run-request-interrupted": await import("./0008-run-request-interrupted.ts"),
    "0009-run-progress": await import("./0009-run-progress.ts"),
    "0010-run-request-retried": await import("./0010-run-request-retried.ts"),
    "0011-idempotency-keys": await import("./0011-idempotency-keys.ts"),
    "0012-run-params": await import("./0012-run-params.ts"),
    "0013-ui-revoked-sessions": await import("./0013-ui-revoked-sessions.ts"),
    "0014-run-children": await import("./0014-run-children.ts"),
  }),
};
