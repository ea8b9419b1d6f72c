import { type CliServices, type CommandInput, UsageError } from "tidemark";
import { formatZodIssues, isoTimestamp, typed } from "tidemark/kit";
import type { z } from "zod";
import { ProductRepo } from "../repos/product-repo.ts";
import {
  type ProductView,
  productCreateInput,
  productUpdateInput,
} from "../repos/product-schemas.ts";
import type { MercariTables } from "../tables.ts";
import { parseClearable, parseCount, parseId } from "./cli-values.ts";

async function repo(services: CliServices): Promise<{ repo: ProductRepo; now: string }> {
  const pipeline = await services.services();
  return {
    repo: new ProductRepo(typed<MercariTables>(pipeline.db)),
    now: isoTimestamp(pipeline.clock.now()),
  };
}

/** The setting fields the options give (undefined = not given). */
function settingFields(o: CommandInput["options"]) {
  return {
    category_id: parseClearable(o.categoryId, "--category-id", parseId),
    exclude_keyword: o.excludeKeyword === "none" ? null : (o.excludeKeyword as unknown),
    min_price: parseClearable(o.minPrice, "--min-price", parseCount),
    max_price: parseClearable(o.maxPrice, "--max-price", parseCount),
  };
}

/** The option each field comes from: a refusal names what the user typed, not the API field. */
const FLAGS: Readonly<Record<string, string>> = {
  name: "--name",
  keyword: "--keyword",
  category_id: "--category-id",
  exclude_keyword: "--exclude-keyword",
  min_price: "--min-price",
  max_price: "--max-price",
};

/** Validates with zod before anything is written; a bad value is one line naming its option. */
function check<S extends z.ZodType>(
  schema: S,
  value: Record<string, unknown>,
  where: string,
): z.output<S> {
  const clean = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
  const parsed = schema.safeParse(clean);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (typeof field === "string" && FLAGS[field]) issue.path[0] = FLAGS[field];
    }
    const shown = Object.fromEntries(Object.entries(clean).map(([k, v]) => [FLAGS[k] ?? k, v]));
    throw new UsageError(formatZodIssues(where, parsed.error, shown));
  }
  return parsed.data;
}

/** `tidemark mercari product add --name N --keyword K …`: says the new id in a sentence. */
export async function productAdd(
  { options: o }: CommandInput,
  services: CliServices,
): Promise<void> {
  if (o.name === undefined) throw new UsageError("mercari product add: --name is required");
  if (o.keyword === undefined) throw new UsageError("mercari product add: --keyword is required");
  const input = check(
    productCreateInput,
    { name: o.name, keyword: o.keyword, ...settingFields(o), enabled: o.disabled !== true },
    "mercari product add options",
  );
  const { repo: products, now } = await repo(services);
  const created = await products.create(input, now);
  const state = created.enabled ? "" : " (disabled)";
  services.print(
    `Added product ${created.id}${state}: ${JSON.stringify(created.name)}, keyword ${JSON.stringify(created.keyword)}`,
  );
  services.print(
    `Crawl it: tidemark mercari crawl; its listings: tidemark mercari results ${created.id}`,
  );
}

function priceRange(p: ProductView): string {
  if (p.min_price === null && p.max_price === null) return "any";
  return `${p.min_price ?? ""}-${p.max_price ?? ""}`;
}

/** `tidemark mercari product ls [--json]`. */
export async function productLs(
  { options: o }: CommandInput,
  services: CliServices,
): Promise<void> {
  const list = await (await repo(services)).repo.list();
  if (o.json) {
    services.printJson(list);
    return;
  }
  if (list.length === 0) {
    services.print("No product yet: tidemark mercari product add --name N --keyword K");
    return;
  }
  services.printTable(
    ["ID", "NAME", "KEYWORD", "EXCLUDE", "CATEGORY", "PRICE", "ENABLED"],
    list.map((p) => [
      p.id,
      p.name,
      p.keyword,
      p.exclude_keyword,
      priceRange(p),
      p.enabled ? "yes" : "no",
    ]),
  );
}

/** `tidemark mercari product update <id> [--name] [--keyword] [--category-id] [--min-price] [--max-price]`. */
export async function productUpdate(input: CommandInput, services: CliServices): Promise<void> {
  const id = parseId(input.args.id, "product id");
  const o = input.options;
  const patch = check(
    productUpdateInput,
    { name: o.name, keyword: o.keyword, ...settingFields(o) },
    "mercari product update options",
  );
  if (Object.keys(patch).length === 0) {
    throw new UsageError("mercari product update: nothing to change (give --name, --keyword, …)");
  }
  const { repo: products, now } = await repo(services);
  const updated = await products.update(id, patch, now);
  services.print(`product ${updated.id} updated`);
}

async function setEnabled(input: CommandInput, services: CliServices, enabled: boolean) {
  const id = parseId(input.args.id, "product id");
  const { repo: products, now } = await repo(services);
  await products.update(id, { enabled }, now);
  services.print(`product ${id} ${enabled ? "enabled" : "disabled"}`);
}

/** `tidemark mercari product enable <id>`. */
export async function productEnable(input: CommandInput, services: CliServices): Promise<void> {
  await setEnabled(input, services, true);
}

/** `tidemark mercari product disable <id>`. */
export async function productDisable(input: CommandInput, services: CliServices): Promise<void> {
  await setEnabled(input, services, false);
}

/** `tidemark mercari product rm <id>`. */
export async function productRm(input: CommandInput, services: CliServices): Promise<void> {
  const id = parseId(input.args.id, "product id");
  const { repo: products } = await repo(services);
  const { results_deleted } = await products.remove(id);
  services.print(`product ${id} deleted with ${results_deleted} stored listing(s)`);
}
