import type { DialectName } from "tidemark/kit";
import { EmailsRepo } from "./emails-repo.ts";
import { FailuresRepo } from "./failures-repo.ts";
import { MembersRepo } from "./members-repo.ts";
import { RecipientsRepo } from "./recipients-repo.ts";
import { SuppressionsRepo } from "./suppressions-repo.ts";

/** The repositories a fetch run uses, built once per run and passed down. */
export interface FetchRepos {
  readonly emails: EmailsRepo;
  readonly recipients: RecipientsRepo;
  readonly members: MembersRepo;
  readonly failures: FailuresRepo;
  readonly suppressions: SuppressionsRepo;
}

/** Builds a run's repositories for its database's dialect. */
export function createFetchRepos(dialect: DialectName): FetchRepos {
  return {
    emails: new EmailsRepo(),
    recipients: new RecipientsRepo(dialect),
    members: new MembersRepo(dialect),
    failures: new FailuresRepo(),
    suppressions: new SuppressionsRepo(),
  };
}
