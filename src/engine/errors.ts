/** The error classes live below the engine (infra reports config errors too); the engine re-exports them. */
export * from "../infra/errors.ts";
