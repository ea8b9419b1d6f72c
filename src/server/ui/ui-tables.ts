/** A dashboard session signed out before its expiry (server migration 0001). */
export interface UiRevokedSessionsTable {
  /** The session's nonce (never the token). */
  nonce: string;
  /** The session's own expiry; the row is pruned after it. */
  expires_at: string;
}

/** Failed dashboard sign-ins (wrong tokens) of one client, for the throttle (server migration 0001). */
export interface UiSignInFailuresTable {
  /** The client's address (an IPv6 one by its /64); nothing about the tokens tried. */
  client: string;
  /** When the current window began (its first attempt); failures count for that window only. */
  window_start: string;
  failures: number;
}

/** The dashboard's own tables (the `server` migration scope), for Kysely. */
export interface UiTables {
  tm_ui_revoked_sessions: UiRevokedSessionsTable;
  tm_ui_sign_in_failures: UiSignInFailuresTable;
}
