import type { z } from "zod";
import type { RouteServices } from "./route-spec.ts";

/** A run of one of the pipeline's jobs, as a panel sees it. */
export interface PanelRun {
  readonly runId: string;
  readonly jobName: string;
  readonly jobType: string;
  readonly status: string;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly summary: Record<string, unknown> | null;
}

/**
 * What a panel's view and actions can use (`tidemark serve`): the services of a pipeline's HTTP
 * routes, and the pipeline's recent runs (for charts over runs).
 */
export interface PanelServices extends RouteServices {
  /** The latest runs of this pipeline's job types (or of one), newest first (default 50). */
  recentRuns(options?: { jobType?: string; limit?: number }): Promise<PanelRun[]>;
}

/** A colour hint for a value: the dashboard maps it to its own styles. */
export type PanelTone = "ok" | "warn" | "bad" | "muted";

/**
 * A button in a table cell that asks for an action of the panel. The dashboard shows the
 * action's confirmation page first when it has one, and protects the form against CSRF.
 */
export interface PanelActionButton {
  /** The action's name (`PanelActions`). */
  readonly action: string;
  /** String inputs the action receives (validated by its schema). */
  readonly input: Readonly<Record<string, string>>;
  readonly label: string;
}

/** One table cell: plain text or number, or text with a link, an image, a tone or a button. */
export type PanelCell =
  | string
  | number
  | null
  | {
      readonly text: string;
      /** An http(s) link. */
      readonly href?: string;
      /** An http(s) image URL shown beside the text. */
      readonly image?: string;
      readonly tone?: PanelTone;
      readonly button?: PanelActionButton;
    };

/** A line or area chart: x values (epoch seconds when `time`, else 1..n) and y series. */
export interface PanelChart {
  readonly kind: "chart";
  readonly title: string;
  /** true: x holds epoch seconds; false: x holds ordinal positions (1, 2, …). */
  readonly time: boolean;
  readonly x: readonly number[];
  readonly series: ReadonlyArray<{ label: string; values: ReadonlyArray<number | null> }>;
  /**
   * Ordinal charts: what each x stands for (e.g. a run's start time), in x's order; the legend
   * shows it for the point under the cursor.
   */
  readonly labels?: readonly string[];
  /** A shaded band between two of the series (by index), e.g. the quartiles around a median. */
  readonly band?: { readonly lower: number; readonly upper: number };
  /**
   * A fixed y axis (default: fitted to the values): from `min` to `max`, with a tick every
   * `step` when given — e.g. 0 to 1 by 1 for a yes/no series, which would otherwise be drawn
   * on a 0–100 axis whenever every value is 0.
   */
  readonly y?: { readonly min: number; readonly max: number; readonly step?: number };
  /** Text shown when x is empty. */
  readonly empty?: string;
}

/** One block of a panel, top to bottom. */
export type PanelBlock =
  | {
      readonly kind: "stats";
      readonly items: ReadonlyArray<{ label: string; value: string | number; tone?: PanelTone }>;
    }
  | {
      readonly kind: "table";
      readonly title: string;
      readonly columns: readonly string[];
      readonly rows: ReadonlyArray<readonly PanelCell[]>;
      /** Text shown when there are no rows. */
      readonly empty: string;
    }
  | PanelChart
  | { readonly kind: "note"; readonly text: string };

/** What a panel shows: plain data, rendered (and escaped) by the dashboard. */
export interface PanelView {
  readonly blocks: readonly PanelBlock[];
}

/** A change a panel offers (e.g. reset a cursor), run by a confirmed, CSRF-checked form. */
export interface PanelAction {
  /** Validates the button's input; a failure is answered 400 and runs nothing. */
  readonly input: z.ZodObject;
  /** The question shown before it runs, e.g. "Reset the cursors of job nightly?"; none = no confirmation. */
  confirm?(input: Record<string, unknown>): string;
  /** Does it; returns the one-line message shown after. */
  run(input: Record<string, unknown>, services: PanelServices): Promise<string>;
}

/** The heavy part of a panel, loaded on first use. */
export interface PanelModule {
  view(services: PanelServices): Promise<PanelView>;
  readonly actions?: Readonly<Record<string, PanelAction>>;
}

/**
 * A pipeline's dashboard panel (`/ui/pipelines/<name>`). The definition holds only the title;
 * `load` imports the implementation lazily, so the definition stays cheap to import.
 */
export interface PanelSpec {
  readonly title: string;
  load(): Promise<PanelModule>;
}
