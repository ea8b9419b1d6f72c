import {
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type SchemableIdentifierNode,
  type UnknownRow,
} from "kysely";

class FlattenSchemaTransformer extends OperationNodeTransformer {
  protected override transformSchemableIdentifier(
    node: SchemableIdentifierNode,
  ): SchemableIdentifierNode {
    const transformed = super.transformSchemableIdentifier(node);
    if (!transformed.schema) return transformed;
    return Object.freeze({
      kind: "SchemableIdentifierNode",
      identifier: Object.freeze({
        kind: "IdentifierNode",
        name: `${transformed.schema.name}_${transformed.identifier.name}`,
      }),
    }) as SchemableIdentifierNode;
  }
}

/**
 * Rewrites `schema.table` to `schema_table` so that one query serves both dialects:
 * `apl.item` on Postgres is `apl_item` on SQLite, which has no schemas.
 */
export class FlattenSchemaPlugin implements KyselyPlugin {
  readonly #transformer = new FlattenSchemaTransformer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
