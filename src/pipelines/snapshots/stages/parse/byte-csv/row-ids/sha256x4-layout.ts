/** What the 4-lane SHA-256 module (sha256x4-code.ts) asks of its caller's memory. */

/** Bytes of scratch per lane: a padded message of up to 64 blocks. */
export const LANE_BYTES = 4096;
/** The longest message it takes (padding adds at least 9 bytes). */
export const MAX_MESSAGE = LANE_BYTES - 9;
/** Bytes of scratch hashBatch needs at its `scratch` address. */
export const SCRATCH_BYTES = 4 * LANE_BYTES;
/** Bytes per descriptor (message address, length, output address). */
export const DESC_BYTES = 12;
