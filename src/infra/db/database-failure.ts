import { ConfigError, TidemarkError } from "../errors.ts";
import { redactText } from "../logging/redact.ts";

/** SQLite result codes (primary, before `_`) a user can act on, and what to say about each. */
const SQLITE_CAUSES: Record<string, string> = {
  SQLITE_READONLY:
    "cannot write: the database is read-only (check the permissions of the file, its -wal and -shm files and its folder)",
  SQLITE_CORRUPT: "the file is corrupt (restore it from a backup)",
  SQLITE_NOTADB: "the file is not a SQLite database",
  SQLITE_FULL: "cannot write: the disk is full",
  SQLITE_BUSY: "locked by another process for longer than database.busy_timeout_ms",
  SQLITE_LOCKED: "locked by another connection",
  SQLITE_CANTOPEN: "cannot open the file",
  SQLITE_PERM: "permission denied",
  SQLITE_IOERR: "input/output error",
};

/** Node socket errors: the Postgres server went away in the middle of the command. */
const CONNECTION_LOST = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT"]);

function sqliteCause(code: string): string | undefined {
  const primary = code.match(/^SQLITE_[A-Z]+/)?.[0];
  return primary ? SQLITE_CAUSES[primary] : undefined;
}

/** pg's SQLSTATE (5 characters) or Node's socket codes. */
function postgresCause(code: string, message: string): string | undefined {
  // Class 08: connection exception; 57P01-57P03: the server shut down or is starting.
  if (code.startsWith("08") || /^57P0[123]$/.test(code) || CONNECTION_LOST.has(code)) {
    return `connection lost (${message})`;
  }
  if (code === "42501") return `permission denied (${message})`;
  if (code === "25006") return `the database is read-only (${message})`;
  if (code === "53100") return `the disk is full (${message})`;
  return undefined;
}

/** What to say about one error of the chain, or undefined when it is not a database failure. */
function causeOf(err: Error): string | undefined {
  const code = (err as { code?: unknown }).code;
  const message = err.message.split("\n")[0] ?? "";
  if (typeof code === "string") {
    return code.startsWith("SQLITE_") ? sqliteCause(code) : postgresCause(code, message);
  }
  return /^Connection terminated/.test(message) ? `connection lost (${message})` : undefined;
}

/**
 * The error a command hit in the database, as one line naming the database (`where`, already
 * fit to print) and what to do, or undefined when it is not a database failure a user can fix.
 * A wrapping error (`migration failed in engine/0011-…: …`) keeps its words as context.
 */
export function databaseFailure(err: unknown, where: string | undefined): ConfigError | undefined {
  // A TidemarkError already says what and where (e.g. "cannot open" from openDatabase).
  if (where === undefined || !(err instanceof Error) || err instanceof TidemarkError) {
    return undefined;
  }
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const cause = causeOf(e);
    if (!cause) continue;
    const context =
      e !== err && err.message.endsWith(e.message)
        ? `${err.message.slice(0, -e.message.length).replace(/[:\s]+$/, "")}: `
        : "";
    return new ConfigError(`database ${where}: ${redactText(`${context}${cause}`)}`, {
      cause: err,
    });
  }
  return undefined;
}
