/**
 * How long after `exp` each service still accepts an ID token, in seconds (docs/protocol.md
 * "Authentication"): the standby 24 h, the main service not at all.
 */
export const ID_TOKEN_GRACE_SECONDS = { main: 0, standby: 86_400 } as const;
