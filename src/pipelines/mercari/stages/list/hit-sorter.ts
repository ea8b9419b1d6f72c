import type { SearchItem } from "../../client/types.ts";
import type { ResultInput } from "../../repos/crawl-result-repo.ts";
import type { ProductView } from "../../repos/product-schemas.ts";
import { SELLER_TYPE, SELLING_STATUS } from "../../tables.ts";
import { priceInRange, settingFingerprint } from "./match.ts";
import type { PageWriter } from "./page-writer.ts";

/** A priced search hit as a row of `mercari_crawl_results`, found under `fingerprint`. */
export function toResultInput(
  productId: number,
  item: SearchItem & { price: number },
  fingerprint: string,
): ResultInput {
  return {
    product_id: productId,
    external_id: item.id,
    name: item.name,
    price: item.price,
    selling_url: item.url,
    image_url: item.thumbnailUrl,
    selling_status: item.status === "on_sale" ? SELLING_STATUS.onSale : SELLING_STATUS.sold,
    seller_type: item.sellerType === "shop" ? SELLER_TYPE.shop : SELLER_TYPE.user,
    seller_id: item.sellerId,
    setting_fingerprint: fingerprint,
  };
}

/**
 * Sorts a crawl's hits page by page: a hit without a price is no observation, a hit priced
 * outside the range no match (each counted, and its stored row, if any, deleted by inspect);
 * every other hit the search returned matches and goes to the page writer as a row under the
 * setting's fingerprint.
 */
export class HitSorter {
  readonly noPrice = new Set<string>();
  readonly outOfRange = new Set<string>();
  kept = 0;
  readonly #fingerprint: string;

  constructor(
    private readonly product: ProductView,
    private readonly writer: PageWriter,
  ) {
    this.#fingerprint = settingFingerprint(product);
  }

  add = (fresh: readonly SearchItem[]): Promise<void> => {
    const rows: ResultInput[] = [];
    for (const item of fresh) {
      if (item.price === null) this.noPrice.add(item.id);
      else if (!priceInRange(this.product, item.price)) this.outOfRange.add(item.id);
      else
        rows.push(
          toResultInput(this.product.id, { ...item, price: item.price }, this.#fingerprint),
        );
    }
    this.kept += rows.length;
    return this.writer.add(rows);
  };
}
