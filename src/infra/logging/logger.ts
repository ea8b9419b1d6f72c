import pino, { type DestinationStream, type Logger } from "pino";
import { redactSecrets, redactText } from "./redact.ts";

export type { Logger } from "pino";

export interface LoggerOptions {
  level: string;
  /** Human-readable output; default: when stderr is a TTY. */
  pretty?: boolean;
  /** Where lines go; default stderr (stdout is kept for command output). */
  destination?: DestinationStream;
  /**
   * Show errors' stack traces in pretty output (default true). The CLI shows them only with
   * --verbose; JSON lines always keep them.
   */
  prettyStacks?: boolean;
}

/** A pino logger writing JSON lines (pretty on a TTY) with secrets redacted from every line. */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.pretty ?? (options.destination === undefined && process.stderr.isTTY);
  const pinoOptions: pino.LoggerOptions = {
    level: options.level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (obj) => redactSecrets(obj) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const redacted = args.map((a) => (typeof a === "string" ? redactText(a) : a));
        return method.apply(this, redacted as Parameters<typeof method>);
      },
    },
  };
  if (options.destination) return pino(pinoOptions, options.destination);
  if (pretty) {
    return pino({
      ...pinoOptions,
      transport: {
        target: "pino-pretty",
        options: {
          destination: 2,
          colorize: true,
          ...(options.prettyStacks === false ? { ignore: "err.stack" } : {}),
        },
      },
    });
  }
  return pino(pinoOptions, pino.destination({ fd: 2, sync: true }));
}

/** A logger that discards everything (tests, --quiet). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
