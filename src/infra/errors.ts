/** Process exit codes, documented in `tidemark --help`. */
export const ExitCode = {
  ok: 0,
  jobFailed: 1,
  usage: 2,
  alreadyRunning: 3,
} as const;

/** Base class of every error Tidemark reports to a user; carries the exit code to use. */
export class TidemarkError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** Wrong arguments, unknown names, invalid params: the user must change the command. */
export class UsageError extends TidemarkError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.usage, options);
  }
}

/** tidemark.yaml or a TIDEMARK_* variable is invalid. */
export class ConfigError extends TidemarkError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.usage, options);
  }
}

/** A named thing (job, run, job type) does not exist. */
export class NotFoundError extends TidemarkError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.usage, options);
  }
}

/** Another process holds the lease for this key. */
export class AlreadyRunningError extends TidemarkError {
  constructor(
    readonly key: string,
    readonly holder: string | undefined,
  ) {
    super(
      `${key} is already running${holder ? ` (held by ${holder})` : ""}`,
      ExitCode.alreadyRunning,
    );
  }
}

/**
 * A run tried to commit after its lease was taken over (or released): the commit did not
 * happen, and the run ends `abandoned` ("lease lost").
 */
export class LeaseLostError extends TidemarkError {
  constructor(
    // Not `key`: logs redact a field by that name as a secret, and this one names the lease.
    readonly leaseKey: string,
    readonly holder: string,
  ) {
    super(`lease lost: ${leaseKey} is no longer held by ${holder}; nothing was committed`, 1);
  }
}

/**
 * A run request's delivery found its promised run id taken by another delivery of the same
 * request that got there first: nothing ran, and the delivery is acknowledged.
 */
export class DuplicateDeliveryError extends TidemarkError {
  constructor(readonly runId: string) {
    super(`run ${runId} was already started by another delivery of its request`, 1);
  }
}

/** A job ran and failed; the run is recorded with status `failed`. */
export class JobFailedError extends TidemarkError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.jobFailed, options);
  }
}

/** One-line description of any thrown value, for logs and CLI output. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
