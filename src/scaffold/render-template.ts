import type { NameForms } from "./pipeline-name.ts";

/**
 * The template is a working pipeline named `starter-kit`; each spelling of that name is
 * replaced by the same spelling of the new name. Longest first, so no spelling eats another.
 */
const TEMPLATE_FORMS: NameForms = {
  kebab: "starter-kit",
  snake: "starter_kit",
  camel: "starterKit",
  pascal: "StarterKit",
  upper: "STARTER_KIT",
  title: "Starter Kit",
};

/** Placeholders of values that are not the name. */
export interface TemplateValues {
  /** The `tidemark` dependency of the new package.json (a version range or a tarball). */
  tidemarkSpec: string;
  /** Tidemark's own version: the peer range a published pipeline asks for. */
  tidemarkVersion: string;
}

/** The template's text with the new name's spellings and the given values in place. */
export function renderTemplate(text: string, forms: NameForms, values: TemplateValues): string {
  let out = text
    .replaceAll("__TIDEMARK_SPEC__", values.tidemarkSpec)
    .replaceAll("__TIDEMARK_VERSION__", values.tidemarkVersion);
  for (const key of Object.keys(TEMPLATE_FORMS) as Array<keyof NameForms>) {
    out = out.replaceAll(TEMPLATE_FORMS[key], forms[key]);
  }
  return out;
}

/**
 * A template file's path in the new folder: the name replaced, and `_`-prefixed dot files and
 * package.json restored (npm drops `.gitignore` from a packed tarball, and a package.json in the
 * template would make it a package of its own).
 */
export function renderPath(relative: string, forms: NameForms): string {
  const parts = relative.split("/").map((part) => {
    if (part === "_gitignore") return ".gitignore";
    if (part === "_package.json") return "package.json";
    return part.replaceAll(TEMPLATE_FORMS.kebab, forms.kebab);
  });
  return parts.join("/");
}
