import { describe, expect, it } from "vitest";
import { renderPanel } from "./render-panel.ts";

describe("renderPanel", () => {
  it("escapes every text, drops non-http links and images, keeps chart JSON inert", async () => {
    const page = String(
      await renderPanel(
        {
          blocks: [
            { kind: "note", text: "<script>alert(1)</script>" },
            {
              kind: "table",
              title: "t<b>",
              columns: ["a"],
              empty: "none",
              rows: [
                [{ text: "x", href: "javascript:alert(1)", image: "data:image/png;base64,AA" }],
                [
                  {
                    text: "y",
                    href: "https://example.com/?a=1&b=2",
                    image: "https://img.example/p.jpg",
                  },
                ],
                [
                  {
                    text: "z",
                    button: { action: "go", input: { job: '"><script>' }, label: "Go" },
                  },
                ],
              ],
            },
            {
              kind: "chart",
              title: "c",
              time: false,
              x: [1, 2],
              series: [{ label: "</script><script>alert(1)</script>", values: [1, 2] }],
              y: { min: 0, max: 1, step: 1 },
            },
          ],
        },
        "books",
        "tok",
      ),
    );
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("javascript:");
    expect(page).not.toContain("data:image");
    expect(page).toContain('href="https://example.com/?a=1&amp;b=2"');
    expect(page).toContain('src="https://img.example/p.jpg"');
    expect(page).toContain('action="/ui/pipelines/books/actions/go"');
    expect(page).toContain('value="&quot;&gt;&lt;script&gt;"');
    expect(page).toContain("\\u003c/script>");
    // A fixed y axis reaches the script that draws the chart.
    expect(page).toContain('"y":{"min":0,"max":1,"step":1}');
  });

  it("names each row's button after the row (one of several Reset buttons) and leaves no empty header", async () => {
    const page = String(
      await renderPanel(
        {
          blocks: [
            {
              kind: "table",
              title: "Cursors",
              columns: ["Job", ""],
              empty: "none",
              rows: ["nightly", "weekly"].map((job) => [
                job,
                { text: "", button: { action: "reset", input: { job }, label: "Reset" } },
              ]),
            },
          ],
        },
        "books",
        "tok",
      ),
    );
    expect(page).toContain('aria-label="Reset: nightly"');
    expect(page).toContain('aria-label="Reset: weekly"');
    expect(page).not.toContain('<th scope="col"></th>');
  });

  it("a table of more than three columns is stacked on a phone, each value named by its column", async () => {
    const table = (columns: string[]) =>
      String(
        renderPanel(
          {
            blocks: [
              {
                kind: "table",
                title: "T",
                columns,
                empty: "none",
                rows: [columns.map((c) => (c === "N" ? 7 : c === "X" ? null : `v-${c}`))],
              },
            ],
          },
          "books",
          "tok",
        ),
      );
    const wide = table(["Job", "Query set", "N", "X", ""]);
    expect(wide).toContain('<table class="stack-narrow">');
    expect(wide).toContain('<td data-label="Query set">v-Query set</td>');
    expect(wide).toContain('<td class="num" data-label="N">7</td>');
    expect(wide).toContain('<td class="tone-muted" data-label="X">—</td>');
    // The button column has no name: nothing to show beside it.
    expect(wide).toContain("<td>v-</td>");
    expect(table(["Job", "Sent", "Books"])).toContain("<table>");
  });

  it("a chart without data shows its empty text only: no blank chart box, no image role", async () => {
    const page = String(
      await renderPanel(
        {
          blocks: [
            {
              kind: "chart",
              title: "Facts",
              time: true,
              x: [],
              series: [{ label: "acme", values: [] }],
              empty: "No published run yet.",
            },
          ],
        },
        "snapshots",
        "tok",
      ),
    );
    expect(page).toContain("No published run yet.");
    expect(page).not.toContain('class="chart"');
    expect(page).not.toContain('role="img"');
  });

  it("shows a UTC timestamp cell as every table shows times, other text as it is", async () => {
    const page = String(
      await renderPanel(
        {
          blocks: [
            {
              kind: "table",
              title: "t",
              columns: ["when", "what"],
              empty: "none",
              rows: [["2026-12-06T11:58:47.805Z", "2026-12-06 is a date, not a time"]],
            },
          ],
        },
        "p",
        "csrf",
      ),
    );
    expect(page).toContain("<td>2026-12-06 11:58:47</td>");
    expect(page).not.toContain("11:58:47.805Z");
    expect(page).toContain("<td>2026-12-06 is a date, not a time</td>");
  });
});
