import { ConfigError, rememberSecret } from "tidemark";
import { sha256Hex } from "tidemark/kit";
import type { RakutenSettings } from "../settings.ts";

/** The secrets a client needs; read from the environment, never stored or printed. */
export interface RakutenCredentials {
  applicationId: string;
  /** Required by the new host; the old host ignores it. */
  accessKey: string | undefined;
  affiliateId: string | undefined;
}

/**
 * Reads the credentials from the variables the settings name. A missing application id (or
 * access key on the new host) is a configuration error naming the variable, not its value.
 */
export function readRakutenCredentials(
  settings: RakutenSettings,
  env: NodeJS.ProcessEnv,
): RakutenCredentials {
  const get = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const applicationId = get(settings.applicationIdEnv);
  if (applicationId === undefined) {
    throw new ConfigError(
      `${settings.applicationIdEnv} is not set: the Rakuten application id (pipelines.rakuten.application_id_env)`,
    );
  }
  const accessKey = get(settings.accessKeyEnv);
  if (accessKey === undefined && settings.hostStyle === "openapi") {
    throw new ConfigError(
      `${settings.accessKeyEnv} is not set: the new Rakuten host needs an access key (pipelines.rakuten.access_key_env)`,
    );
  }
  const affiliateId = get(settings.affiliateIdEnv);
  // An error body may quote them back (a 400 repeating the query): masked wherever they appear.
  for (const secret of [applicationId, accessKey, affiliateId]) rememberSecret(secret);
  return { applicationId, accessKey, affiliateId };
}

/** The shared rate-limit bucket of an application id: a hash, so the id is not stored in clear. */
export function rateLimitKey(applicationId: string): string {
  return `rakuten:${sha256Hex(applicationId).slice(0, 24)}`;
}
