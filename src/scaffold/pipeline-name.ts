/**
 * The name of a scaffolded pipeline and the spellings the template needs: the pipeline and
 * job type prefix (kebab), table names (snake), identifiers (camel, Pascal) and environment
 * variables (upper snake). Rules: docs/write-a-pipeline.md.
 */

/** Lower-case words of letters and digits joined by single hyphens, starting with a letter. */
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const MAX_LENGTH = 40;

/** The spellings of one pipeline name. */
export interface NameForms {
  /** `acme-issues`: the pipeline's name, its folder, its job types' prefix. */
  kebab: string;
  /** `acme_issues`: table names. */
  snake: string;
  /** `acmeIssues`: variables. */
  camel: string;
  /** `AcmeIssues`: types. */
  pascal: string;
  /** `ACME_ISSUES`: environment variables. */
  upper: string;
  /** `Acme Issues`: titles. */
  title: string;
}

/** Why `name` cannot name a pipeline, or undefined when it can. */
export function pipelineNameProblem(name: string, taken: readonly string[]): string | undefined {
  if (!NAME.test(name)) {
    return `pipeline name ${JSON.stringify(name)} must be lower-case letters and digits in words joined by single hyphens, starting with a letter (e.g. acme or acme-issues)`;
  }
  if (name.length > MAX_LENGTH) {
    return `pipeline name ${JSON.stringify(name)} is longer than ${MAX_LENGTH} characters`;
  }
  if (taken.includes(name)) {
    return `pipeline name ${JSON.stringify(name)} is taken (by a pipeline or a command of Tidemark)`;
  }
  return undefined;
}

/** The spellings of a valid name. */
export function nameForms(name: string): NameForms {
  const words = name.split("-");
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return {
    kebab: name,
    snake: words.join("_"),
    camel: words[0] + words.slice(1).map(cap).join(""),
    pascal: words.map(cap).join(""),
    upper: words.join("_").toUpperCase(),
    title: words.map(cap).join(" "),
  };
}
