import type { CommandOptionSpec, CommandSpec } from "tidemark";

const json: CommandOptionSpec = { flags: "--json", description: "print as JSON" };
const settingOptions: CommandOptionSpec[] = [
  { flags: "--category-id <id>", description: "Mercari category id" },
  {
    flags: "--exclude-keyword <words>",
    description: "words Mercari's search leaves out (accessories, junk; `none` clears it)",
  },
  { flags: "--min-price <yen>", description: "lowest price (inclusive)" },
  { flags: "--max-price <yen>", description: "highest price (inclusive)" },
];

type Impl = typeof import("./commands/product-commands.ts") &
  typeof import("./commands/crawl-commands.ts");

/** Runs a command implementation, loaded on first use. */
function lazy(file: "product" | "crawl", name: keyof Impl): CommandSpec["action"] {
  return async (input, services) => {
    const mod =
      file === "product"
        ? await import("./commands/product-commands.ts")
        : await import("./commands/crawl-commands.ts");
    await (mod as Impl)[name](input, services);
  };
}

/** `tidemark mercari …`: crawl, results, trend, cheapest and product management. */
export const mercariCommands: readonly CommandSpec[] = [
  {
    path: ["mercari", "crawl"],
    description:
      "crawl the search of every enabled product (or --product) now and queue the detail checks; exit 1 saying blocked when Mercari blocks the crawler",
    options: [{ flags: "--product <id>", description: "only this product" }, json],
    action: lazy("crawl", "crawlCommand"),
  },
  {
    path: ["mercari", "results"],
    description: "a product's stored listings, newest first",
    args: [{ name: "productId" }],
    options: [
      { flags: "--status <status>", description: "on_sale or sold" },
      { flags: "--limit <n>", description: "rows to show (default 50)" },
      json,
    ],
    action: lazy("crawl", "resultsCommand"),
  },
  {
    path: ["mercari", "trend"],
    description:
      "sold prices per day or week (count, min, p25, median, p75, max); sold dates are approximated from Mercari's updated time",
    args: [{ name: "productId" }],
    options: [
      { flags: "--from <date>", description: "start, YYYY-MM-DD (default 30 days before --to)" },
      { flags: "--to <date>", description: "end, exclusive (default now)" },
      { flags: "--bucket <bucket>", description: "day or week (default day)" },
      json,
    ],
    action: lazy("crawl", "trendCommand"),
  },
  {
    path: ["mercari", "cheapest"],
    description: "the cheapest listings on sale",
    args: [{ name: "productId" }],
    options: [{ flags: "--limit <n>", description: "rows to show (default 10)" }, json],
    action: lazy("crawl", "cheapestCommand"),
  },
  {
    path: ["mercari", "product", "add"],
    description: "add a product with its crawl setting; prints the new id",
    options: [
      { flags: "--name <name>", description: "product name (required)" },
      { flags: "--keyword <keyword>", description: "search keyword (required)" },
      ...settingOptions,
      { flags: "--disabled", description: "add it disabled (not crawled until enabled)" },
    ],
    action: lazy("product", "productAdd"),
  },
  {
    path: ["mercari", "product", "ls"],
    description: "products with their crawl settings",
    options: [json],
    action: lazy("product", "productLs"),
  },
  {
    path: ["mercari", "product", "update"],
    description:
      "change a product's name or setting (`none` clears a price, category or exclude keyword)",
    args: [{ name: "id" }],
    options: [
      { flags: "--name <name>", description: "product name" },
      { flags: "--keyword <keyword>", description: "search keyword" },
      ...settingOptions,
    ],
    action: lazy("product", "productUpdate"),
  },
  {
    path: ["mercari", "product", "enable"],
    description: "crawl the product again",
    args: [{ name: "id" }],
    action: lazy("product", "productEnable"),
  },
  {
    path: ["mercari", "product", "disable"],
    description: "stop crawling the product (its listings stay)",
    args: [{ name: "id" }],
    action: lazy("product", "productDisable"),
  },
  {
    path: ["mercari", "product", "rm"],
    description: "delete the product with its setting and every stored listing",
    args: [{ name: "id" }],
    action: lazy("product", "productRm"),
  },
];
